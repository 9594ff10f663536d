import Foundation
import Synchronization
import Testing

@testable import YrdenTransport

/// A cancel must reach the upstream however it interleaves with the request being bound to its handle.
@Suite struct CallHandleTests {
    @Test func aCancelBeforeBindingRunsTheActionWhenBound() {
        let handle = CallHandle()
        let reasons = Mutex<[String]>([])
        handle.cancel(reason: "early")
        handle.bind { reason in reasons.withLock { $0.append(reason) } }
        #expect(reasons.withLock { $0 } == ["early"])
    }

    @Test func aCancelAfterBindingRunsTheActionOnceWithTheFirstReason() {
        let handle = CallHandle()
        let reasons = Mutex<[String]>([])
        handle.bind { reason in reasons.withLock { $0.append(reason) } }
        handle.cancel(reason: "first")
        handle.cancel(reason: "second")
        #expect(reasons.withLock { $0 } == ["first"])
    }

    @Test func aBoundHandleThatIsNeverCancelledRunsNothing() {
        let handle = CallHandle()
        let ran = Atomic(false)
        handle.bind { _ in ran.store(true, ordering: .relaxed) }
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
    }

    /// Cancel and bind on two threads released together, many times: the action runs exactly once every time.
    @Test func concurrentCancelAndBindNeverLoseTheCancel() async {
        let rounds = 50_000
        let handles = (0..<rounds).map { _ in CallHandle() }
        let runs = Mutex([Int](repeating: 0, count: rounds))
        let barrier = Barrier()
        let cancelling = JoinableThread {
            for round in 0..<rounds {
                barrier.arrive(round)
                handles[round].cancel(reason: "client went away")
            }
        }
        let binding = JoinableThread {
            for round in 0..<rounds {
                barrier.arrive(round)
                handles[round].bind { _ in runs.withLock { $0[round] += 1 } }
            }
        }
        await cancelling.join()
        await binding.join()
        let counts = runs.withLock { $0 }
        let lost = counts.filter { $0 == 0 }.count
        let doubled = counts.filter { $0 > 1 }.count
        #expect(lost == 0, "cancels lost in \(rounds) rounds")
        #expect(doubled == 0, "actions run twice in \(rounds) rounds")
    }
}

/// Two threads meet here each round, so neither acts in round `n` before both reached it.
private final class Barrier: Sendable {
    private let arrived = Atomic(0)

    func arrive(_ round: Int) {
        arrived.add(1, ordering: .acquiringAndReleasing)
        while arrived.load(ordering: .acquiring) < 2 * (round + 1) { sched_yield() }
    }
}

/// An OS thread of its own, joined when its work is done: the test needs two threads truly at once, which
/// pool tasks do not promise. The join suspends rather than blocking a thread of the pool every test shares.
private final class JoinableThread: Sendable {
    private let done: AsyncStream<Void>

    init(_ work: @escaping @Sendable () -> Void) {
        let (done, finished) = AsyncStream.makeStream(of: Void.self)
        self.done = done
        Thread {
            work()
            finished.finish()
        }
        .start()
    }

    func join() async {
        for await _ in done {}
    }
}
