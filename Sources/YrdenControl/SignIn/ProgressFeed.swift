import Synchronization
import YrdenOAuth

/// Hands one OAuth session's progress changes to the engine's `report` and to the sign-in waits.
///
/// The session calls ``publish(_:)`` on its own executor, never while a lock is held, and it returns at once:
/// the listener is a quick closure and each wait's stream keeps only the newest signal, since a wait re-reads
/// the session's state after every signal anyway. The session outlives reconnects, so the listener is
/// replaced by each new connection (``attach(_:)``).
final class ProgressFeed: Sendable {
    private struct State {
        var listener: (@Sendable (OAuthProgress) -> Void)?
        /// The current listener has heard a progress (the newest or the first it was given).
        var heard = false
        var waits: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextWait = 0
    }

    private let state = Mutex(State())

    /// Makes `listener` the one that hears each change from now on.
    func attach(_ listener: @escaping @Sendable (OAuthProgress) -> Void) {
        state.withLock {
            $0.listener = listener
            $0.heard = false
        }
    }

    /// Tells the listener and every wait that the progress is now `progress`.
    func publish(_ progress: OAuthProgress) {
        let (listener, waits) = state.withLock { state in
            state.heard = true
            return (state.listener, Array(state.waits.values))
        }
        listener?(progress)
        for wait in waits { wait.yield(()) }
    }

    /// Gives a listener that has heard nothing yet the session's `current` progress, so a server reconnecting
    /// through a session kept from before shows where its sign-in stands.
    func introduce(_ current: OAuthProgress) {
        let listener = state.withLock { state -> (@Sendable (OAuthProgress) -> Void)? in
            guard !state.heard else { return nil }
            state.heard = true
            return state.listener
        }
        listener?(current)
    }

    /// A signal per change from now on (the newest one kept while the reader is busy); ends when the reader
    /// drops it or its task is cancelled.
    func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            defer { state.nextWait += 1 }
            state.waits[state.nextWait] = continuation
            return state.nextWait
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.waits.removeValue(forKey: id) }
        }
        return stream
    }

    /// How many waits are following the changes.
    var waitCount: Int { state.withLock { $0.waits.count } }
}
