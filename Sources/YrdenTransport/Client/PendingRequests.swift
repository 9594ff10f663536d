import Synchronization
import YrdenProtocol

/// The requests sent to one upstream that still await an answer, keyed by the id the gateway minted.
///
/// A lock, not an actor: the channel's reader thread resolves entries directly, so an answer reaches the
/// waiting task without another hop. Every entry leaves the table exactly once: answered, failed, timed
/// out, or cancelled.
final class PendingRequests: Sendable {
    typealias Reply = Result<JSONValue, JSONRPCError>

    struct Entry {
        var continuation: CheckedContinuation<Reply, any Error>
        var deadline: ContinuousClock.Instant
        /// Progress pushes `deadline` forward, but never past this.
        var hardDeadline: ContinuousClock.Instant
        var extendBy: Duration
        var onProgress: (@Sendable (JSONValue) -> Void)?
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var failure: UpstreamError?
    }

    private let state = Mutex(State())

    /// Adds an entry, or fails at once if the connection has already failed.
    func register(_ id: Int, _ entry: Entry) {
        let failure = state.withLock { state -> UpstreamError? in
            if let failure = state.failure { return failure }
            state.entries[id] = entry
            return nil
        }
        if let failure { entry.continuation.resume(throwing: failure) }
    }

    /// Completes the request; `false` when nobody waits for it any more (late or unknown answers are dropped).
    @discardableResult
    func resolve(_ id: Int, with reply: Reply) -> Bool {
        guard let entry = state.withLock({ $0.entries.removeValue(forKey: id) }) else { return false }
        entry.continuation.resume(returning: reply)
        return true
    }

    /// Fails one request; `false` when it was no longer pending.
    @discardableResult
    func fail(_ id: Int, with error: UpstreamError) -> Bool {
        guard let entry = state.withLock({ $0.entries.removeValue(forKey: id) }) else { return false }
        entry.continuation.resume(throwing: error)
        return true
    }

    /// Fails everything in flight and every later registration: the connection is gone.
    func failAll(with error: UpstreamError) {
        let entries = state.withLock { state in
            state.failure = state.failure ?? error
            defer { state.entries.removeAll() }
            return Array(state.entries.values)
        }
        entries.forEach { $0.continuation.resume(throwing: error) }
    }

    /// Passes a progress notification to the request it belongs to and extends its deadline.
    func progress(_ id: Int, params: JSONValue, now: ContinuousClock.Instant) {
        let sink = state.withLock { state -> (@Sendable (JSONValue) -> Void)? in
            guard var entry = state.entries[id] else { return nil }
            entry.deadline = min(entry.hardDeadline, max(entry.deadline, now + entry.extendBy))
            state.entries[id] = entry
            return entry.onProgress
        }
        sink?(params)
    }

    /// The ids whose deadline has passed, each with its timeout; the caller fails them (and tells the upstream).
    func expired(at now: ContinuousClock.Instant) -> [(id: Int, timeout: Duration)] {
        state.withLock { state in
            state.entries.filter { $0.value.deadline <= now }.map { ($0.key, $0.value.extendBy) }
        }
    }
}
