import Synchronization

@testable import YrdenTransport

/// A clock that moves only when a test says so. Every sleep that starts is announced on ``sleeps`` with its
/// deadline, so a test can see exactly when, and towards what, the code under test chose to sleep.
final class ManualTime: TimeSource {
    private struct Sleeper {
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: ContinuousClock.Instant
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
        var cancelled = 0
    }

    private let state: Mutex<State>
    private let announce: AsyncStream<ContinuousClock.Instant>.Continuation
    /// The deadline of each sleep, in the order they started.
    let sleeps: AsyncStream<ContinuousClock.Instant>

    init(start: ContinuousClock.Instant = .now) {
        state = Mutex(State(now: start))
        (sleeps, announce) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    var now: ContinuousClock.Instant { state.withLock { $0.now } }

    /// Sleeps still waiting.
    var waiting: Int { state.withLock { $0.sleepers.count } }

    /// Sleeps cut short by cancellation.
    var cancelled: Int { state.withLock { $0.cancelled } }

    func sleep(until deadline: ContinuousClock.Instant) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        announce.yield(deadline)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled {
                        state.cancelled += 1
                        return .failure(CancellationError())
                    }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else { return nil }
                state.cancelled += 1
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleep that is due.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return Array(due.values)
        }
        due.forEach { $0.continuation.resume() }
    }
}
