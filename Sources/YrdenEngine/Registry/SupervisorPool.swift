import Synchronization

/// The running supervisors, one per server id, each a task that can be stopped on its own.
///
/// Servers come and go while the gateway runs (the admin API), so their lifetimes cannot be children of one
/// task group; the pool bounds them instead: ``closeAndStopAll()`` cancels every one and waits for each to
/// finish (for a child process: reaped), and nothing starts after it.
final class SupervisorPool: Sendable {
    private struct Running {
        var token: Int
        var task: Task<Void, Never>
    }

    private struct State {
        var running: [String: Running] = [:]
        var nextToken = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// Runs `body` for `id` unless one is already running or the pool is closed.
    func start(_ id: String, _ body: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            guard !state.closed, state.running[id] == nil else { return }
            state.nextToken += 1
            let token = state.nextToken
            state.running[id] = Running(
                token: token,
                task: Task {
                    await body()
                    self.finished(id, token: token)
                }
            )
        }
    }

    func isRunning(_ id: String) -> Bool {
        state.withLock { $0.running[id] != nil }
    }

    /// Cancels `id`'s supervisor and returns once it has finished.
    func stop(_ id: String) async {
        let running = state.withLock { $0.running.removeValue(forKey: id) }
        running?.task.cancel()
        await running?.task.value
    }

    /// Stops every supervisor and refuses new ones: the gateway is shutting down.
    func closeAndStopAll() async {
        let tasks = state.withLock { state in
            state.closed = true
            defer { state.running.removeAll() }
            return state.running.values.map(\.task)
        }
        tasks.forEach { $0.cancel() }
        for task in tasks { await task.value }
    }

    /// A supervisor that gave up by itself (reconnect policy exhausted) leaves the pool, so it can be started
    /// again; one that was replaced meanwhile is left alone.
    private func finished(_ id: String, token: Int) {
        state.withLock { state in
            if state.running[id]?.token == token { state.running.removeValue(forKey: id) }
        }
    }
}
