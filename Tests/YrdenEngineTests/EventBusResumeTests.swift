import Testing

@testable import YrdenEngine

/// The bus keeps its last 1,024 events, so a stream resumed after one of them gets every later event once, in
/// order, the held ones before the live ones; one resumed after an event it no longer holds, or one it never
/// numbered, is told that some are missing and gets the live ones.
@Suite struct EventBusResumeTests {
    private static func removals(_ range: ClosedRange<Int>) -> [GatewayEvent] {
        range.map { .serverRemoved(id: "s\($0)") }
    }

    /// The sequence numbers of the first `count` events of `stream`.
    private static func numbers(_ stream: AsyncStream<SequencedEvent>, _ count: Int) async -> [UInt64] {
        var numbers: [UInt64] = []
        for await event in stream {
            numbers.append(event.sequence)
            if numbers.count == count { break }
        }
        return numbers
    }

    @Test func aStreamResumedAfterAHeldEventGetsTheRestThenTheLiveOnes() async {
        let bus = EventBus()
        bus.publish(Self.removals(1...1_100))
        let (events, complete) = bus.subscribe(after: 1_090)
        #expect(complete)
        bus.publish(Self.removals(1_101...1_102))
        #expect(await Self.numbers(events, 12) == Array(1_091...1_102))

        let (upToDate, nothingMissed) = bus.subscribe(after: 1_102)
        #expect(nothingMissed)
        bus.publish(Self.removals(1_103...1_103))
        #expect(await Self.numbers(upToDate, 1) == [1_103])
    }

    @Test func aStreamResumedAfterAnEventNoLongerHeldOrNeverNumberedIsToldSo() async {
        let bus = EventBus()
        bus.publish(Self.removals(1...1_100))
        // 1,024 held: 77 to 1,100; resuming after 76 still misses none, after 75 misses 76.
        #expect(bus.subscribe(after: 76).complete)
        let (events, complete) = bus.subscribe(after: 75)
        #expect(!complete)
        #expect(!bus.subscribe(after: 1_101).complete, "a number the bus never handed out (it restarted)")
        bus.publish(Self.removals(1_101...1_101))
        #expect(await Self.numbers(events, 1) == [1_101], "the live events only")
    }
}
