import Synchronization

/// Waits for a task to finish, but no longer than a deadline.
///
/// `await task.value` cannot be abandoned: cancelling the waiter does not end the wait. An operator's change
/// must answer within its time limit even when a server takes longer to stop, so the wait is a continuation
/// that whichever comes first, the task's end or the deadline, resumes exactly once.
enum BoundedWait {
    /// `true` when `task` finished before `deadline`; otherwise it keeps running and `false` is returned.
    static func wait(
        for task: Task<Void, Never>,
        until deadline: ContinuousClock.Instant
    ) async -> Bool {
        let outcome = OnceResult()
        return await withCheckedContinuation { continuation in
            outcome.install(continuation)
            let timer = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                outcome.resume(false)
            }
            Task {
                await task.value
                outcome.resume(true)
                timer.cancel()
            }
        }
    }
}

/// A continuation that the first of several racers resumes; the others find it taken.
private final class OnceResult: Sendable {
    private let continuation = Mutex<CheckedContinuation<Bool, Never>?>(nil)

    func install(_ continuation: CheckedContinuation<Bool, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resume(_ value: Bool) {
        continuation.withLock { slot in
            defer { slot = nil }
            return slot
        }?.resume(returning: value)
    }
}
