import Synchronization

/// A one-shot event set by the reaper thread and awaited by tasks, with a timeout.
final class ExitSignal: Sendable {
    private struct State {
        var status: ExitStatus?
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter = 0
        /// Waiters that timed out before their continuation was even registered.
        var abandoned: Set<Int> = []
    }

    private let state = Mutex(State())

    var status: ExitStatus? { state.withLock { $0.status } }

    func fire(_ status: ExitStatus) {
        let waiters = state.withLock { state in
            state.status = status
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        waiters.forEach { $0.resume(returning: true) }
    }

    /// `true` when the event fired within `timeout`.
    func wait(timeout: Duration) async -> Bool {
        if status != nil { return true }
        return await withTaskGroup(of: Bool.self) { group in
            let id = state.withLock { state -> Int in
                defer { state.nextWaiter += 1 }
                return state.nextWaiter
            }
            group.addTask {
                await withCheckedContinuation { continuation in
                    let fired = self.state.withLock { state -> Bool in
                        if state.status != nil || state.abandoned.remove(id) != nil { return true }
                        state.waiters[id] = continuation
                        return false
                    }
                    if fired { continuation.resume(returning: true) }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            if !first {
                let waiter = state.withLock { state in
                    let waiter = state.waiters.removeValue(forKey: id)
                    if waiter == nil { state.abandoned.insert(id) }
                    return waiter
                }
                waiter?.resume(returning: false)
            }
            group.cancelAll()
            await group.waitForAll()
            return first
        }
    }
}
