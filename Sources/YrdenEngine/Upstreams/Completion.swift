import Synchronization
import YrdenTransport

/// A one-shot signal: a connection has stopped, has carried out an operator's command, or the startup gate
/// has opened.
///
/// Waiters are continuations the signal resumes (an event, not a poll). A wait with a deadline answers at
/// whichever comes first, so an operator's change answers within its limit however long a server takes.
/// Past `maxWaiters` a wait returns at once rather than being held (bounded memory under a flood).
final class Completion: Sendable {
    private struct State {
        var isDone = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var lastID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let maxWaiters: Int

    init(maxWaiters: Int = .max) {
        self.maxWaiters = maxWaiters
    }

    var isDone: Bool { state.withLock { $0.isDone } }

    func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.isDone else { return [] }
            state.isDone = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once signalled, or as soon as the calling task is cancelled.
    func wait() async {
        let id = state.withLock { state in
            state.lastID += 1
            return state.lastID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let held = state.withLock { state in
                    // Checked under the lock: a cancellation either came before (seen here) or finds the waiter.
                    guard !state.isDone, !Task.isCancelled, state.waiters.count < maxWaiters else { return false }
                    state.waiters[id] = continuation
                    return true
                }
                if !held { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// `true` when signalled before `deadline` (read and slept on `time`).
    func wait(until deadline: ContinuousClock.Instant, time: any TimeSource) async -> Bool {
        guard !isDone else { return true }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wait() }
            group.addTask { try? await time.sleep(until: deadline) }
            await group.next()
            group.cancelAll()
        }
        return isDone
    }
}
