import Synchronization
import YrdenTransport

/// A ``TimeSource`` that moves only when a test advances it, so timeouts, retries and pings are tested in
/// milliseconds and happen exactly when the test says, however loaded the machine is.
///
/// A test cannot see what a task is about to do, only what it waits for: every sleep that starts is
/// announced on ``sleeps``, and the `parked` waits return once the code under test has gone to sleep, so the
/// test moves time past a timer only after that timer is armed.
package final class TestClock: TimeSource {
    private struct Sleeper {
        var deadline: ContinuousClock.Instant
        var wake: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        /// Whether the deadlines of the sleeps waiting now are what the watcher waits for.
        var satisfied: @Sendable ([ContinuousClock.Instant]) -> Bool
        var wake: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var now: ContinuousClock.Instant
        var sleepers: [UInt64: Sleeper] = [:]
        var lastID: UInt64 = 0
        var cancelled = 0
        var watchers: [UInt64: Watcher] = [:]
        /// Watchers whose real-time limit passed before they were registered.
        var expired: Set<UInt64> = []

        mutating func nextID() -> UInt64 {
            lastID += 1
            return lastID
        }

        /// Removes and returns the watchers the sleeps waiting now satisfy.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Bool, Never>] {
            let deadlines = sleepers.values.map(\.deadline)
            let ready = watchers.filter { $0.value.satisfied(deadlines) }
            for id in ready.keys { watchers.removeValue(forKey: id) }
            return ready.values.map(\.wake)
        }
    }

    private let state: Mutex<State>
    private let announce: AsyncStream<ContinuousClock.Instant>.Continuation
    /// The deadline of each sleep, in the order they started.
    package let sleeps: AsyncStream<ContinuousClock.Instant>

    package init(start: ContinuousClock.Instant = .now) {
        state = Mutex(State(now: start))
        (sleeps, announce) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    package var now: ContinuousClock.Instant { state.withLock { $0.now } }

    /// Sleeps still waiting.
    package var waiting: Int { state.withLock { $0.sleepers.count } }

    /// The deadlines of the sleeps still waiting, earliest first.
    package var deadlines: [ContinuousClock.Instant] {
        state.withLock { $0.sleepers.values.map(\.deadline) }.sorted()
    }

    /// Sleeps cut short by cancellation.
    package var cancelled: Int { state.withLock { $0.cancelled } }

    package func sleep(until deadline: ContinuousClock.Instant) async throws {
        let id = state.withLock { $0.nextID() }
        announce.yield(deadline)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, watchers) = state.withLock {
                    state -> (Result<Void, any Error>?, [CheckedContinuation<Bool, Never>]) in
                    if Task.isCancelled {
                        state.cancelled += 1
                        return (.failure(CancellationError()), [])
                    }
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, wake: continuation)
                    return (nil, state.satisfiedWatchers())
                }
                watchers.forEach { $0.resume(returning: true) }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else { return nil }
                state.cancelled += 1
                return sleeper
            }
            sleeper?.wake.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleep that is due, earliest first.
    package func advance(by duration: Duration) {
        advance(to: now + duration)
    }

    /// Moves the clock to `instant` (never back) and wakes every sleep that is due, earliest first.
    package func advance(to instant: ContinuousClock.Instant) {
        let due = state.withLock { state in
            state.now = max(state.now, instant)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }.sorted {
                $0.value.deadline < $1.value.deadline
            }
            for (id, _) in due { state.sleepers.removeValue(forKey: id) }
            return due.map(\.value.wake)
        }
        due.forEach { $0.resume() }
    }

    /// `true` once at least `count` sleeps wait on this clock; `false` after `limit` of real time.
    package func parked(_ count: Int, within limit: Duration = .seconds(10)) async -> Bool {
        await watch(within: limit) { $0.count >= count }
    }

    /// `true` once a sleep waits for exactly `deadline` (the code under test armed that timer); `false` after
    /// `limit` of real time.
    package func parked(until deadline: ContinuousClock.Instant, within limit: Duration = .seconds(10)) async -> Bool {
        await watch(within: limit) { $0.contains(deadline) }
    }

    /// `true` once a sleep waits for an instant in `range` (a timer with jitter); `false` after `limit`.
    package func parked(
        in range: ClosedRange<ContinuousClock.Instant>,
        within limit: Duration = .seconds(10)
    ) async -> Bool {
        await watch(within: limit) { $0.contains(where: range.contains) }
    }

    private func watch(
        within limit: Duration,
        _ satisfied: @escaping @Sendable ([ContinuousClock.Instant]) -> Bool
    ) async -> Bool {
        let id = state.withLock { $0.nextID() }
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            let watcher = state.withLock { state -> Watcher? in
                if let watcher = state.watchers.removeValue(forKey: id) { return watcher }
                state.expired.insert(id)
                return nil
            }
            watcher?.wake.resume(returning: false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let ready = state.withLock { state -> Bool? in
                if state.expired.remove(id) != nil { return false }
                if satisfied(state.sleepers.values.map(\.deadline)) { return true }
                state.watchers[id] = Watcher(satisfied: satisfied, wake: continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
