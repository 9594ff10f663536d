import Dispatch
import Synchronization
import Testing

@testable import YrdenTransport

/// A server's frames reach its handler in order, and a handler that falls behind pauses the reader.
@Suite struct FrameDeliveryTests {
    @Test func framesKeepTheirOrderWhetherRunAtOnceOrQueued() {
        let delivery = FrameDelivery(maxPendingBytes: 1 << 20, maxInlineBytes: 10)
        let seen = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        for index in 0..<200 {
            let bytes = index % 3 == 0 ? 100 : 5  // some go to the queue, the rest would run at once
            _ = delivery.enqueue(bytes: bytes, resume: {}) { seen.withLock { $0.append(index) } }
        }
        delivery.enqueue { done.signal() }
        done.wait()
        #expect(seen.withLock { $0 } == Array(0..<200))
    }

    @Test func aHandlerThatFallsBehindPausesTheReaderUntilItCatchesUp() {
        let delivery = FrameDelivery(maxPendingBytes: 100, maxInlineBytes: 0)
        let gate = DispatchSemaphore(value: 0)
        let resumed = DispatchSemaphore(value: 0)
        #expect(delivery.enqueue(bytes: 60, resume: {}) { gate.wait() })
        let keepReading = delivery.enqueue(bytes: 60, resume: { resumed.signal() }) {}
        #expect(!keepReading, "120 bytes wait, over the bound of 100: the reader must pause")
        gate.signal()
        #expect(resumed.wait(timeout: .now() + .seconds(10)) == .success, "never resumed")
    }
}
