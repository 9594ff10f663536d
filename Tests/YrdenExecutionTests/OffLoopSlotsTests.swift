import Dispatch
import Synchronization
import Testing
import YrdenExecution
import YrdenLineIO
import YrdenTesting

#if canImport(Glibc)
import Glibc
#endif

/// Heavy work (tool searches, admin listings) runs off the event loop, a few at a time; a piece that finds every
/// slot taken waits its turn in order, on its caller's clock for a bounded time, and one that finds the line
/// full is refused at once rather than queued without end.
@Suite struct OffLoopSlotsTests {
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

    /// The outcome of a run: its value or why it was refused.
    static func outcome<R: Sendable>(
        _ slots: OffLoopSlots,
        _ time: TestClock,
        _ work: @escaping @Sendable () async -> R
    ) async -> Result<R, OffLoopSlots.Refusal> {
        do throws(OffLoopSlots.Refusal) {
            return .success(try await slots.run(waitingOn: { try await time.sleep(until: time.now + $0) }, work))
        } catch {
            return .failure(error)
        }
    }

    /// Slots of one running and `waiting` in line, whose first run holds its slot until `gate` opens.
    static func heldSlot(
        waiting: Int,
        patience: Duration = .seconds(5),
        _ time: TestClock,
        _ gate: Gate
    ) async -> (OffLoopSlots, Task<Result<Int, OffLoopSlots.Refusal>, Never>) {
        let slots = OffLoopSlots(running: 1, waiting: waiting, patience: patience)
        let first = Task {
            await outcome(slots, time) {
                await gate.hold()
                return 1
            }
        }
        await gate.waitEntered()
        return (slots, first)
    }

    @Test func theWorkRunsOffTheThreadOfTheTaskThatAsked() async throws {
        let loop = try LoopStandIn()
        let slots = OffLoopSlots(running: 2, waiting: 32, patience: .seconds(10))
        let (caller, worker) = try await Task(executorPreference: loop) {
            let caller = pthread_self()
            let worker = try await slots.run { pthread_self() }
            return (caller, worker)
        }.value
        let loopThread = try #require(loop.thread)
        #expect(pthread_equal(caller, loopThread) != 0, "the asking task ran on the loop's thread")
        #expect(pthread_equal(worker, loopThread) == 0, "the work was done on the loop's thread")
    }

    @Test func aRunPastTheLineIsRefusedAtOnceAndTheOneInLineHasItsTurn() async throws {
        let time = TestClock()
        let gate = Gate()
        let (slots, first) = await Self.heldSlot(waiting: 1, time, gate)
        let start = time.now
        let second = Task { await Self.outcome(slots, time) { 2 } }
        #expect(await time.parked(until: start + .seconds(5)), "the second waits in line, at most 5 s")
        #expect(await Self.outcome(slots, time) { 3 } == .failure(.lineFull(waiting: 1)))
        gate.open()
        #expect(await first.value == .success(1))
        #expect(await second.value == .success(2), "the slot went to the one in line")
    }

    @Test func aRunThatWaitsPastItsPatienceIsRefusedAndTheSlotStaysHeld() async throws {
        let time = TestClock()
        let gate = Gate()
        let (slots, first) = await Self.heldSlot(waiting: 4, patience: .seconds(5), time, gate)
        let start = time.now
        let second = Task { await Self.outcome(slots, time) { 2 } }
        #expect(await time.parked(until: start + .seconds(5)))
        time.advance(by: .seconds(5))
        #expect(await second.value == .failure(.waitedTooLong(limit: .seconds(5))))
        #expect(slots.inLine == 0)
        // The slot is still held; a new waiter gets it when it is left.
        let third = Task { await Self.outcome(slots, time) { 3 } }
        #expect(await time.parked(until: start + .seconds(10)))
        gate.open()
        #expect(await first.value == .success(1))
        #expect(await third.value == .success(3), "the slot went to the one waiting")
        #expect(await Self.outcome(slots, time) { 4 } == .success(4), "a free slot runs the work at once")
    }

    @Test func aRunWhoseTaskIsCancelledLeavesTheLine() async throws {
        let time = TestClock()
        let gate = Gate()
        let (slots, first) = await Self.heldSlot(waiting: 4, time, gate)
        let second = Task { await Self.outcome(slots, time) { 2 } }
        #expect(await time.parked(until: time.now + .seconds(5)))
        second.cancel()
        #expect(await second.value == .failure(.cancelled))
        #expect(slots.inLine == 0)
        gate.open()
        #expect(await first.value == .success(1))
    }

    @Test func aRunOfACancelledTaskDoesNotTakeAFreeSlot() async throws {
        let time = TestClock()
        let slots = OffLoopSlots(running: 1, waiting: 4, patience: .seconds(5))
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await Self.outcome(slots, time) { 1 }
        }
        #expect(await cancelled.value == .failure(.cancelled))
        #expect(await Self.outcome(slots, time) { 2 } == .success(2), "the slot is still free")
    }
}
