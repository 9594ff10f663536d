import Synchronization
import YrdenExecution

/// The handler tasks of one server: the tasks that run requests, started on the libmicrohttpd thread that
/// completed a request, and the means for shutdown to cancel them and wait until every one has returned.
///
/// They are unstructured because libmicrohttpd's callbacks cannot await; this registry gives them back the
/// structure a task group would: `HTTPServer.run()` cancels them and returns only after the last one has
/// returned. Each prefers ``InlineExecutor``, so a request runs on the thread that handed it over until its
/// first suspension, and its answer runs where the upstream's reply arrives.
///
/// A task that has served a request waits for the next one (up to ``maxIdle`` of them wait) rather than ending:
/// a task keeps the memory its async frames took until it ends, and a request goes a dozen frames deep, so a
/// new task per request paid a dozen `malloc`s and `free`s for them, plus the task itself, on every call. A
/// request whose client left cancels its task, which then ends after that request instead of serving another.
/// The cancel marks the task under the lock before cancelling it outside, and a marked task never waits for
/// another request: a request that ends in between cannot hand its task, and the cancel, to the next one.
final class HandlerTasks: Sendable {
    typealias Operation = @Sendable () async -> Void

    /// A request and the id it is cancelled by.
    private struct Job: Sendable {
        let id: UInt64
        let operation: Operation
    }

    /// A task that has not returned.
    private struct Worker {
        /// `nil` until stored (a task may start, and return, first).
        var handle: Task<Void, Never>?
        /// Its request was cancelled: the task ends after that request, whether or not the cancel has reached
        /// the Swift task yet.
        var doomed = false
    }

    private struct State {
        var nextID: UInt64 = 0
        /// Every task that has not returned, serving or waiting.
        var tasks: [UInt64: Worker] = [:]
        /// The request each serving task runs, by request id.
        var serving: [UInt64: UInt64] = [:]
        /// The tasks waiting for a request, the most recently idle last.
        var idle: [(task: UInt64, next: UnsafeContinuation<Job?, Never>)] = []
        var cancelled = false
        var idleWaiter: CheckedContinuation<Void, Never>?
    }

    /// The most tasks kept waiting for requests: as many as requests run at once under load. Each keeps the
    /// memory of its deepest request (some 16 KB), so they hold about 1 MB at most.
    static let maxIdle = 64

    private let state = Mutex(State())

    /// Runs in ``cancel(_:)`` after the lock is released and before the task is cancelled: the window a racing
    /// request falls into. Tests use it to drive that race in order.
    private let afterCancelLookup: (@Sendable () -> Void)?

    init(afterCancelLookup: (@Sendable () -> Void)? = nil) {
        self.afterCancelLookup = afterCancelLookup
    }

    /// Starts `operation`, running its first stretch on this thread when this thread allows inline runs, on a
    /// waiting task or a new one. The caller must hold no lock the operation could take. Returns the request's
    /// id, for ``cancel(_:)``.
    @discardableResult
    func start(_ operation: @escaping Operation) -> UInt64 {
        let (job, waiting, newTask) = state.withLock {
            state -> (Job, UnsafeContinuation<Job?, Never>?, UInt64?) in
            state.nextID += 1
            let job = Job(id: state.nextID, operation: operation)
            if let waiting = state.idle.popLast() {
                state.serving[job.id] = waiting.task
                return (job, waiting.next, nil)
            }
            state.nextID += 1
            state.tasks[state.nextID] = Worker()
            state.serving[job.id] = state.nextID
            return (job, nil, state.nextID)
        }
        if let waiting {
            waiting.resume(returning: job)
        } else if let newTask {
            spawn(newTask, first: job)
        }
        return job.id
    }

    /// Outlives this call by design: a libmicrohttpd callback cannot await; `run()` cancels and awaits it.
    private func spawn(_ id: UInt64, first: Job) {
        let task = Task(executorPreference: InlineExecutor.shared) { [self] in
            var job: Job? = first
            while let current = job {
                await current.operation()
                job = await next(after: current, on: id)
            }
            returned(id)
        }
        let cancelNow = state.withLock { state -> Bool in
            guard state.tasks[id] != nil else { return false }  // it has returned already
            state.tasks[id]?.handle = task
            return state.cancelled || state.tasks[id]?.doomed == true
        }
        if cancelNow { task.cancel() }
    }

    /// The next request for task `id`, once one comes; `nil` when the task should end instead: it was
    /// cancelled (or its cancel is under way), the server is stopping, or enough tasks wait already.
    private func next(after finished: Job, on id: UInt64) async -> Job? {
        await withUnsafeContinuation { next in
            let waits = state.withLock { state -> Bool in
                state.serving[finished.id] = nil
                guard !Task.isCancelled, state.tasks[id]?.doomed != true, !state.cancelled,
                    state.idle.count < Self.maxIdle
                else { return false }
                state.idle.append((id, next))
                return true
            }
            if !waits { next.resume(returning: nil) }
        }
    }

    /// Cancels the task serving request `id` if it still is; the task ends after that request. The task is
    /// marked in the same step that finds it, so it cannot go on to serve another request before the cancel
    /// reaches it; one whose handle is not stored yet is cancelled when it is.
    func cancel(_ id: UInt64) {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard let task = state.serving[id] else { return nil }  // finished already: nothing to cancel
            state.tasks[task]?.doomed = true
            return state.tasks[task]?.handle
        }
        afterCancelLookup?()
        task?.cancel()
    }

    /// Cancels every running task, and every task started from now on; waiting tasks end.
    func cancelAll() {
        let (tasks, waiting) = state.withLock { state in
            state.cancelled = true
            defer { state.idle = [] }
            return (state.tasks.values.compactMap(\.handle), state.idle.map(\.next))
        }
        for task in tasks { task.cancel() }
        for next in waiting { next.resume(returning: nil) }
    }

    /// Returns once no task is running. Tasks waiting for a request count as running until ``cancelAll()``.
    func waitUntilAllReturned() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                guard !state.tasks.isEmpty else { return true }
                state.idleWaiter = continuation
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// How many tasks wait for a request now.
    var waitingCount: Int { state.withLock { $0.idle.count } }

    /// How many tasks have not returned, serving or waiting.
    var taskCount: Int { state.withLock { $0.tasks.count } }

    private func returned(_ id: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.tasks.removeValue(forKey: id)
            return state.tasks.isEmpty ? state.idleWaiter.take() : nil
        }
        waiter?.resume()
    }
}
