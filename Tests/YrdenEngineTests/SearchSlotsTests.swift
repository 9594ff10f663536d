import Testing
import YrdenTesting

@testable import YrdenEngine

/// Tool searches run a few at a time; a search that finds every slot taken waits its turn, in order, on the
/// gateway's clock for a bounded time, and one that finds the line full is refused at once.
@Suite struct SearchSlotsTests {
    @Test func aSearchWaitsForAFreeSlotAndIsRefusedPastItsWaitOrAFullLine() async throws {
        let time = TestClock()
        let slots = SearchSlots(maxRunning: 1, maxWaiting: 1, maxWait: .seconds(5))
        try await slots.enter(time)
        let start = time.now
        let waiting = Task { () -> SearchSlots.Refusal? in
            do throws(SearchSlots.Refusal) {
                try await slots.enter(time)
                return nil
            } catch {
                return error
            }
        }
        #expect(await time.parked(until: start + .seconds(5)), "the second waits, at most 5 s")
        await #expect(throws: SearchSlots.Refusal.queueFull(waiting: 1)) { try await slots.enter(time) }
        time.advance(by: .seconds(5))
        #expect(await waiting.value == .waitedTooLong(limit: .seconds(5)))
        // The slot is still held; a new waiter gets it when it is left.
        let next = Task { () -> Bool in (try? await slots.enter(time)) != nil }
        #expect(await time.parked(until: start + .seconds(10)))
        slots.leave()
        #expect(await next.value, "the slot went to the one waiting")
        slots.leave()
        #expect(try await slots.run(time: time) { 3 } == 3, "a free slot runs the search at once")
    }
}
