import Foundation
import Synchronization
import Testing
import YrdenExecution

@testable import YrdenHTTPServer

/// The tasks requests run on: one that finished a request serves the next, one whose request was cancelled
/// does not, and shutdown ends them all, waiting ones included.
@Suite struct HandlerTasksTests {
    /// Records, for each request, the task it ran on and whether that task was cancelled.
    final class Runs: Sendable {
        private let runs = Mutex<[Int: (task: Int, cancelled: Bool)]>([:])

        func operation(_ number: Int, holding gate: Gate? = nil) -> HandlerTasks.Operation {
            { [self] in
                if let gate { await gate.wait() }
                let task = withUnsafeCurrentTask { $0?.hashValue ?? 0 }
                runs.withLock { $0[number] = (task, Task.isCancelled) }
            }
        }

        subscript(number: Int) -> (task: Int, cancelled: Bool)? { runs.withLock { $0[number] } }
    }

    /// A request that waits until it is let go, or its task is cancelled.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

        func wait() async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let open = state.withLock { state -> Bool in
                        guard !state.open else { return true }
                        state.waiter = continuation
                        return false
                    }
                    if open { continuation.resume() }
                }
            } onCancel: {
                open()
            }
        }

        func open() {
            state.withLock { state in
                state.open = true
                return state.waiter.take()
            }?.resume()
        }
    }

    private func settle(_ runs: Runs, _ numbers: Int...) async {
        for _ in 0..<500 where numbers.contains(where: { runs[$0] == nil }) {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    private func waitUntilWaiting(_ tasks: HandlerTasks, _ count: Int) async {
        for _ in 0..<500 where tasks.waitingCount < count {
            try? await Task.sleep(for: .milliseconds(2))
        }
        #expect(tasks.waitingCount == count)
    }

    @Test func aTaskThatFinishedARequestServesTheNext() async {
        let tasks = HandlerTasks()
        let runs = Runs()
        tasks.start(runs.operation(1))
        await settle(runs, 1)
        await waitUntilWaiting(tasks, 1)
        tasks.start(runs.operation(2))
        await settle(runs, 2)
        #expect(runs[1]?.task == runs[2]?.task)
        #expect(runs[2]?.cancelled == false)
        tasks.cancelAll()
        await tasks.waitUntilAllReturned()
    }

    @Test func aCancelledRequestEndsItsTaskAndTheNextRunsOnAnother() async {
        let tasks = HandlerTasks()
        let runs = Runs()
        let gate = Gate()
        let first = tasks.start(runs.operation(1, holding: gate))
        tasks.cancel(first)
        await settle(runs, 1)
        #expect(runs[1]?.cancelled == true)
        for _ in 0..<500 where tasks.taskCount > 0 { try? await Task.sleep(for: .milliseconds(2)) }
        #expect(tasks.taskCount == 0)  // the cancelled task ended instead of waiting for another request
        tasks.start(runs.operation(2))
        await settle(runs, 2)
        #expect(runs[2]?.cancelled == false)
        tasks.cancelAll()
        await tasks.waitUntilAllReturned()
    }

    @Test func cancellingAFinishedRequestCancelsNothing() async {
        let tasks = HandlerTasks()
        let runs = Runs()
        let first = tasks.start(runs.operation(1))
        await settle(runs, 1)
        await waitUntilWaiting(tasks, 1)
        tasks.cancel(first)
        tasks.start(runs.operation(2))
        await settle(runs, 2)
        #expect(runs[2]?.cancelled == false)
        #expect(runs[2]?.task == runs[1]?.task)
        tasks.cancelAll()
        await tasks.waitUntilAllReturned()
    }

    /// A cancel that finds its request still running, but whose request ends and whose task takes the next
    /// request before the cancel lands, must not cancel that next request: a client that left would otherwise
    /// fail another client's call. The race is driven in order: everything runs inline on one plain thread,
    /// and the window is the hook between the cancel's lookup and its effect.
    @Test func aCancelRacingTheEndOfItsRequestSparesTheNextRequest() async {
        let runs = Runs()
        let first = Gate()
        let second = Gate()
        let raced = Mutex<HandlerTasks?>(nil)
        let firstEndedInTheWindow = Mutex(false)
        let tasks = HandlerTasks(afterCancelLookup: {
            guard let tasks = raced.withLock({ $0.take() }) else { return }
            InlineRuns.allowed { first.open() }  // request 1 ends here, and its task looks for the next
            firstEndedInTheWindow.withLock { $0 = runs[1] != nil }
            InlineRuns.allowed { tasks.start(runs.operation(2, holding: second)) }
        })
        raced.withLock { $0 = tasks }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                let request = InlineRuns.allowed { tasks.start(runs.operation(1, holding: first)) }
                tasks.cancel(request)
                second.open()
                done.resume()
            }.start()
        }
        await settle(runs, 2)
        #expect(firstEndedInTheWindow.withLock { $0 })  // the race happened in the order it was driven in
        #expect(runs[2]?.cancelled == false)
        tasks.cancelAll()
        await tasks.waitUntilAllReturned()
    }

    /// A request cancelled while its new task's first stretch still runs inline, before the task's handle is
    /// stored, is cancelled once it is: the cancel is remembered, not dropped for want of a task to cancel.
    @Test func aCancelBeforeTheTaskIsStoredStillCancelsIt() async {
        let runs = Runs()
        let gate = Gate()
        let tasks = HandlerTasks()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                InlineRuns.allowed {
                    // The first request of a fresh registry has id 1; its task runs this before `start` returns.
                    tasks.start { [tasks] in
                        tasks.cancel(1)
                        await runs.operation(1, holding: gate)()
                    }
                }
                done.resume()
            }.start()
        }
        await settle(runs, 1)
        #expect(runs[1]?.cancelled == true)
        gate.open()
        tasks.cancelAll()
        await tasks.waitUntilAllReturned()
    }

    @Test func shutdownEndsWaitingTasksAndCancelsLaterRequests() async {
        let tasks = HandlerTasks()
        let runs = Runs()
        let gate = Gate()
        for number in 1...3 { tasks.start(runs.operation(number)) }
        tasks.start(runs.operation(4, holding: gate))
        await settle(runs, 1, 2, 3)
        tasks.cancelAll()
        await tasks.waitUntilAllReturned()  // returns: the waiting tasks ended, the held one was cancelled
        #expect(runs[4]?.cancelled == true)
        tasks.start(runs.operation(5))
        await settle(runs, 5)
        #expect(runs[5]?.cancelled == true)
        await tasks.waitUntilAllReturned()
    }

    @Test func noMoreThanMaxIdleTasksWait() async {
        let tasks = HandlerTasks()
        let runs = Runs()
        let count = HandlerTasks.maxIdle + 6
        let gates = (0..<count).map { _ in Gate() }
        for number in 0..<count { tasks.start(runs.operation(number, holding: gates[number])) }
        for gate in gates { gate.open() }
        for number in 0..<count { await settle(runs, number) }
        await waitUntilWaiting(tasks, HandlerTasks.maxIdle)
        tasks.cancelAll()
        await tasks.waitUntilAllReturned()
        #expect(tasks.waitingCount == 0)
        #expect(tasks.taskCount == 0)
    }
}
