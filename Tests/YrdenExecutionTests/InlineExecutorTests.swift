import Foundation
import Synchronization
import Testing
import YrdenExecution

/// Where a task that prefers `InlineExecutor` runs: on a thread that allowed it, before the call that made it
/// runnable returns; anywhere else, on the global executor.
@Suite struct InlineExecutorTests {
    /// What the threads saw, shared between them.
    final class Seen: Sendable {
        let starter = Mutex<UInt>(0)
        let runner = Mutex<UInt>(0)
        let finished = Mutex(false)
        let parked = Mutex<CheckedContinuation<Void, Never>?>(nil)
    }

    /// A thread of its own, like libmicrohttpd's or the process reactor's: no Swift job runs on it.
    private static func onPlainThread(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                body()
                done.resume()
            }.start()
        }
    }

    private static var currentThread: UInt { UInt(pthread_self()) }

    /// Starts a task that records the thread it runs on, then yields it.
    private static func recordingTask(_ seen: Seen, done: AsyncStream<Void>.Continuation) {
        Task(executorPreference: InlineExecutor.shared) {
            seen.runner.withLock { $0 = currentThread }
            seen.finished.withLock { $0 = true }
            done.finish()
        }
    }

    @Test func aTaskStartedWhereInlineRunsAreAllowedRunsThereAtOnce() async {
        let seen = Seen()
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        let ranBeforeReturn = Mutex(false)
        await Self.onPlainThread {
            seen.starter.withLock { $0 = Self.currentThread }
            InlineRuns.allowed { Self.recordingTask(seen, done: finish) }
            ranBeforeReturn.withLock { $0 = seen.finished.withLock { $0 } }
        }
        for await _ in done {}
        #expect(ranBeforeReturn.withLock { $0 })
        #expect(seen.runner.withLock { $0 } == seen.starter.withLock { $0 })
    }

    @Test func withoutPermissionTheTaskRunsOnTheGlobalExecutor() async {
        let seen = Seen()
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        await Self.onPlainThread {
            seen.starter.withLock { $0 = Self.currentThread }
            Self.recordingTask(seen, done: finish)
        }
        for await _ in done {}
        #expect(seen.runner.withLock { $0 } != seen.starter.withLock { $0 })
    }

    /// The step after a suspension runs on the thread that resumes the task, when that thread allows it: the
    /// way an upstream's answer continues a request on the reactor's thread.
    @Test func aResumedTaskContinuesOnTheThreadThatResumedIt() async {
        let seen = Seen()
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        Task(executorPreference: InlineExecutor.shared) {
            await withCheckedContinuation { continuation in seen.parked.withLock { $0 = continuation } }
            seen.runner.withLock { $0 = Self.currentThread }
            seen.finished.withLock { $0 = true }
            finish.finish()
        }
        while seen.parked.withLock({ $0 == nil }) { await Task.yield() }
        let ranBeforeReturn = Mutex(false)
        await Self.onPlainThread {
            seen.starter.withLock { $0 = Self.currentThread }
            let continuation = seen.parked.withLock { $0.take() }
            InlineRuns.allowed { continuation?.resume() }
            ranBeforeReturn.withLock { $0 = seen.finished.withLock { $0 } }
        }
        for await _ in done {}
        #expect(ranBeforeReturn.withLock { $0 })
        #expect(seen.runner.withLock { $0 } == seen.starter.withLock { $0 })
    }

    /// A job never runs inside another: what an inline step makes runnable goes to the global executor, even
    /// where the step itself allows inline runs again.
    @Test func anInlineStepDoesNotRunAnotherInsideIt() async {
        let outer = Seen()
        let inner = Seen()
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        await Self.onPlainThread {
            outer.starter.withLock { $0 = Self.currentThread }
            InlineRuns.allowed {
                Task(executorPreference: InlineExecutor.shared) {
                    outer.runner.withLock { $0 = Self.currentThread }
                    InlineRuns.allowed { Self.recordingTask(inner, done: finish) }
                }
            }
        }
        for await _ in done {}
        #expect(outer.runner.withLock { $0 } == outer.starter.withLock { $0 })
        #expect(inner.runner.withLock { $0 } != outer.starter.withLock { $0 })
    }
}
