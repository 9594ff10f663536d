import Testing

@testable import YrdenFront

/// A legacy SSE stream's waiting events are bounded in bytes, not only in number.
@Suite struct QueuedEventBytesTests {
    @Test func eventsPastTheByteBoundAreRefusedUntilTheClientReads() {
        let queued = QueuedEventBytes(limit: 100)
        #expect(queued.add(60))
        #expect(queued.add(40))
        #expect(!queued.add(1), "past the bound")
        #expect(queued.count == 100)
        queued.remove(60)
        #expect(queued.add(50))
    }

    @Test func oneEventLargerThanTheBoundPassesWhenNothingWaits() {
        let queued = QueuedEventBytes(limit: 100)
        #expect(queued.add(1_000), "a large result still reaches a client that reads")
        #expect(!queued.add(1))
        queued.remove(1_000)
        #expect(queued.count == 0)
    }

    @Test func theStreamBoundIsEightMebibytes() {
        #expect(LegacySSEEndpoint.maxWaitingBytes == 8 << 20)
    }
}
