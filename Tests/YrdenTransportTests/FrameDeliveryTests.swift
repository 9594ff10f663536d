import Dispatch
import Synchronization
import Testing
import YrdenTesting

@testable import YrdenTransport

/// A server's frames reach its handler in order, and a handler that falls behind pauses the reader.
///
/// The handlers run on the shared dispatch pool, the threads Swift's tasks run on too: a test waits for them
/// by suspending, never by blocking one of those threads on a semaphore (with every test of the suite queued
/// there, the handler it waited for could start only once the pool had gone through them all).
@Suite struct FrameDeliveryTests {
    /// A stream that ends when `signal` is called, and the wait for that end (`false` past its deadline).
    private static func signal() -> (signal: @Sendable () -> Void, wait: @Sendable () async -> Bool) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        let wait: @Sendable () async -> Bool = {
            await withDeadline {
                for await _ in stream {}
                return true
            } == true
        }
        return ({ continuation.finish() }, wait)
    }

    @Test func framesKeepTheirOrderWhetherRunAtOnceOrQueued() async {
        let delivery = FrameDelivery(maxPendingBytes: 1 << 20, maxInlineBytes: 10)
        let seen = Mutex<[Int]>([])
        let (done, allHandled) = Self.signal()
        for index in 0..<200 {
            let bytes = index % 3 == 0 ? 100 : 5  // some go to the queue, the rest would run at once
            _ = delivery.enqueue(bytes: bytes, resume: {}) { seen.withLock { $0.append(index) } }
        }
        delivery.enqueue { done() }
        #expect(await allHandled(), "the last frame was never handled")
        #expect(seen.withLock { $0 } == Array(0..<200))
    }

    @Test func aHandlerThatFallsBehindPausesTheReaderUntilItCatchesUp() async {
        let delivery = FrameDelivery(maxPendingBytes: 100, maxInlineBytes: 0)
        // Held only while the next frame is queued: the handler is behind, not stuck.
        let gate = DispatchSemaphore(value: 0)
        let (resume, resumed) = Self.signal()
        #expect(delivery.enqueue(bytes: 60, resume: {}) { gate.wait() })
        let keepReading = delivery.enqueue(bytes: 60, resume: { resume() }) {}
        #expect(!keepReading, "120 bytes wait, over the bound of 100: the reader must pause")
        gate.signal()
        #expect(await resumed(), "never resumed")
    }
}
