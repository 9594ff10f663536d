import Synchronization
import YrdenExecution

/// The handler tasks of one server: each request's task, started on the libmicrohttpd thread that completed the
/// request, and the means for shutdown to cancel them and wait until every one has returned.
///
/// They are unstructured because libmicrohttpd's callbacks cannot await; this registry gives them back the
/// structure a task group would: `HTTPServer.run()` cancels them and returns only after the last one has
/// returned. Each prefers ``InlineExecutor``, so the request runs on the thread that handed it over until its
/// first suspension, and its answer runs where the upstream's reply arrives.
final class HandlerTasks: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        /// Every started task that has not returned; `nil` until its handle is stored (a task may return first).
        var running: [UInt64: Task<Void, Never>?] = [:]
        var cancelled = false
        var idleWaiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Starts `operation`, running its first stretch on this thread when this thread allows inline runs. The
    /// caller must hold no lock the operation could take. Returns the task's id, for ``cancel(_:)``.
    @discardableResult
    func start(_ operation: @escaping @Sendable () async -> Void) -> UInt64 {
        let id = state.withLock { state in
            state.nextID += 1
            state.running[state.nextID] = .some(nil)
            return state.nextID
        }
        // Outlives this call by design: a libmicrohttpd callback cannot await; `run()` cancels and awaits it.
        let task = Task(executorPreference: InlineExecutor.shared) { [self] in
            await operation()
            finished(id)
        }
        let cancelNow = state.withLock { state -> Bool in
            guard state.running[id] != nil else { return false }  // it has returned already
            state.running[id] = task
            return state.cancelled
        }
        if cancelNow { task.cancel() }
        return id
    }

    /// Cancels the task `id` if it is still running.
    func cancel(_ id: UInt64) {
        let task = state.withLock { $0.running[id] ?? nil }
        task?.cancel()
    }

    /// Cancels every running task, and every task started from now on.
    func cancelAll() {
        let tasks = state.withLock { state in
            state.cancelled = true
            return state.running.values.compactMap { $0 }
        }
        for task in tasks { task.cancel() }
    }

    /// Returns once no task is running.
    func waitUntilAllReturned() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                guard !state.running.isEmpty else { return true }
                state.idleWaiter = continuation
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func finished(_ id: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.running.removeValue(forKey: id)
            return state.running.isEmpty ? state.idleWaiter.take() : nil
        }
        waiter?.resume()
    }
}
