import Dispatch
import Synchronization
import Testing
import YrdenLineIO

@testable import YrdenFront

#if canImport(Glibc)
import Glibc
#endif

/// The admin API's large listings are made off the event loop, a few at a time, and a read that cannot get a
/// turn is refused rather than queued without end.
@Suite struct HeavyReadSlotsTests {
    /// One thread that runs the jobs given to it in order: the test's stand-in for the event loop, which is a
    /// thread of its own that a request task prefers.
    final class LoopStandIn: TaskExecutor, @unchecked Sendable {
        private let jobs = Mutex<[UnownedJob]>([])
        private let ready = DispatchSemaphore(value: 0)
        private let threadID = Mutex<pthread_t?>(nil)
        var thread: pthread_t? { threadID.withLock { $0 } }

        init() throws {
            try DetachedThread.start(name: "loop-stand-in") { [self] in
                threadID.withLock { $0 = pthread_self() }
                while true {
                    ready.wait()
                    let job = jobs.withLock { $0.removeFirst() }
                    job.runSynchronously(on: asUnownedTaskExecutor())
                }
            }
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            jobs.withLock { $0.append(job) }
            ready.signal()
        }
    }

    /// A piece of work that holds its slot until opened, without blocking a thread of the pool.
    final class Gate: Sendable {
        private struct State {
            var entered = false
            var opened = false
            var onEnter: CheckedContinuation<Void, Never>?
            var onOpen: CheckedContinuation<Void, Never>?
        }
        private let state = Mutex(State())

        func hold() async {
            await withCheckedContinuation { (open: CheckedContinuation<Void, Never>) in
                let (entered, opened) = state.withLock { state in
                    state.entered = true
                    if !state.opened { state.onOpen = open }
                    defer { state.onEnter = nil }
                    return (state.onEnter, state.opened)
                }
                entered?.resume()
                if opened { open.resume() }
            }
        }

        func waitEntered() async {
            await withCheckedContinuation { (entered: CheckedContinuation<Void, Never>) in
                let already = state.withLock { state in
                    if !state.entered { state.onEnter = entered }
                    return state.entered
                }
                if already { entered.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { state in
                state.opened = true
                defer { state.onOpen = nil }
                return state.onOpen
            }
            waiting?.resume()
        }
    }

    @Test func theWorkRunsOffTheThreadOfTheTaskThatAsked() async throws {
        let loop = try LoopStandIn()
        let slots = HeavyReadSlots()
        let (caller, worker) = await Task(executorPreference: loop) {
            let caller = pthread_self()
            let worker = await slots.run { pthread_self() }
            return (caller, worker)
        }.value
        let loopThread = try #require(loop.thread)
        #expect(pthread_equal(caller, loopThread) != 0, "the asking task ran on the loop's thread")
        let workThread = try #require(worker)
        #expect(pthread_equal(workThread, loopThread) == 0, "the listing was made on the loop's thread")
    }

    @Test func aReadPastTheLineIsRefusedAndTheOneInLineHasItsTurn() async throws {
        let slots = HeavyReadSlots(running: 1, waiting: 1)
        let gate = Gate()
        let first = Task {
            await slots.run {
                await gate.hold(); return 1
            }
        }
        await gate.waitEntered()
        let second = Task { await slots.run { 2 } }
        try await Self.until { slots.inLine == 1 }
        #expect(await slots.run { 3 } == nil, "the line holds one; a third read is refused at once")
        gate.open()
        #expect(await first.value == 1)
        #expect(await second.value == 2)
    }

    @Test func aReadThatWaitsPastItsPatienceIsRefused() async throws {
        let slots = HeavyReadSlots(running: 1, waiting: 4, patience: .milliseconds(50))
        let gate = Gate()
        let first = Task {
            await slots.run {
                await gate.hold(); return 1
            }
        }
        await gate.waitEntered()
        #expect(await slots.run { 2 } == nil)
        #expect(slots.inLine == 0)
        gate.open()
        #expect(await first.value == 1)
        #expect(await slots.run { 3 } == 3, "the slot is free again")
    }

    @Test func aReadWhoseClientLeftLeavesTheLine() async throws {
        let slots = HeavyReadSlots(running: 1, waiting: 4)
        let gate = Gate()
        let first = Task {
            await slots.run {
                await gate.hold(); return 1
            }
        }
        await gate.waitEntered()
        let second = Task { await slots.run { 2 } }
        try await Self.until { slots.inLine == 1 }
        second.cancel()
        #expect(await second.value == nil)
        #expect(slots.inLine == 0)
        gate.open()
        #expect(await first.value == 1)
    }

    /// Waits until `condition` holds (a lasting state), failing after 10 s.
    static func until(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
