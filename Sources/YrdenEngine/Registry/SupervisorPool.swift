import Synchronization

/// The running supervisors, one per server id, each a task that can be stopped on its own.
///
/// Servers come and go while the gateway runs (the admin API), so their lifetimes cannot be children of one
/// task group; the pool bounds them instead: ``closeAndStopAll()`` cancels every one and waits for each to
/// finish (for a child process: reaped), and nothing starts after it.
///
/// An operator's stop waits only up to a time limit. A supervisor still stopping past it stays in the pool
/// as `stopping`, and a new supervisor for the same id starts only once the old one has finished, so two
/// runs of one server never overlap and the old one's last words cannot land on the new one's link.
final class SupervisorPool: Sendable {
    private struct Running {
        var token: Int
        var task: Task<Void, Never>
    }

    private struct State {
        var running: [String: Running] = [:]
        /// Cancelled, not yet finished: at most one per id (a newer run waits for the older one).
        var stopping: [String: Running] = [:]
        var nextToken = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// Runs `body` for `id` unless one is already running or the pool is closed. When a previous run of `id`
    /// is still stopping, `body` starts after it has finished.
    func start(_ id: String, _ body: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            guard !state.closed, state.running[id] == nil else { return }
            state.nextToken += 1
            let token = state.nextToken
            let previous = state.stopping[id]?.task
            state.running[id] = Running(
                token: token,
                task: Task {
                    await previous?.value
                    if !Task.isCancelled { await body() }
                    self.finished(id, token: token)
                }
            )
        }
    }

    func isRunning(_ id: String) -> Bool {
        state.withLock { $0.running[id] != nil }
    }

    /// Cancels the supervisors of `ids` and waits, at most until `deadline`, for them to finish; returns the
    /// ids still stopping then, which finish in the background.
    func stop(_ ids: [String], until deadline: ContinuousClock.Instant) async -> [String] {
        let tasks = state.withLock { state in
            ids.compactMap { id -> (String, Task<Void, Never>)? in
                if let running = state.running.removeValue(forKey: id) {
                    state.stopping[id] = running
                    return (id, running.task)
                }
                return state.stopping[id].map { (id, $0.task) }
            }
        }
        tasks.forEach { $0.1.cancel() }
        var late: [String] = []
        for (id, task) in tasks where !(await BoundedWait.wait(for: task, until: deadline)) {
            late.append(id)
        }
        return late
    }

    /// Runs `action` once `id` has no run left stopping (at once when it has none).
    func whenStopped(_ id: String, _ action: @escaping @Sendable () -> Void) {
        guard let task = state.withLock({ $0.stopping[id]?.task }) else { return action() }
        Task {
            await task.value
            action()
        }
    }

    /// Stops every supervisor and refuses new ones: the gateway is shutting down.
    func closeAndStopAll() async {
        let tasks = state.withLock { state in
            state.closed = true
            defer {
                state.running.removeAll()
                state.stopping.removeAll()
            }
            return state.running.values.map(\.task) + state.stopping.values.map(\.task)
        }
        tasks.forEach { $0.cancel() }
        for task in tasks { await task.value }
    }

    /// A supervisor that finished (stopped, or gave up by itself when its reconnect policy ran out) leaves
    /// the pool, so it can be started again; a newer run of the same id is left alone.
    private func finished(_ id: String, token: Int) {
        state.withLock { state in
            if state.running[id]?.token == token { state.running.removeValue(forKey: id) }
            if state.stopping[id]?.token == token { state.stopping.removeValue(forKey: id) }
        }
    }
}
