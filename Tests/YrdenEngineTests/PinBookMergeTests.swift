import Testing
import YrdenProtocol

@testable import YrdenEngine

/// Two replicas' pin books made one: an approval made elsewhere (a newer pin of another definition) is taken,
/// a pin only one side has is kept or taken, the same definition pinned at two moments is not a change, and
/// merging again changes nothing, so replicas exchanging their books stop.
@Suite struct PinBookMergeTests {
    private static func tool(_ description: String) -> ToolDefinition {
        ToolDefinition(tool: ["name": "t", "description": .string(description)])
    }

    private static func book(_ pins: [String: PinBook.Pin]) -> PinBook {
        PinBook(servers: ["s": pins])
    }

    @Test func anApprovalMadeOnAnotherReplicaIsTaken() throws {
        let here = Self.book([
            "t": PinBook.Pin(pinned: Self.tool("old"), pinnedAt: 1, pending: Self.tool("new"), changedAt: 2)
        ])
        var there = here
        _ = try there.approve("s", tool: "t", at: 3).get()
        let (merged, changed) = here.merging(there)
        #expect(changed == ["s"])
        #expect(merged["s", "t"]?.pinned == Self.tool("new"))
        #expect(merged["s", "t"]?.isChanged == false)
    }

    @Test func anOlderPinOfAnotherDefinitionDoesNotUndoANewerOne() {
        let here = Self.book(["t": PinBook.Pin(pinned: Self.tool("approved"), pinnedAt: 5)])
        let there = Self.book(["t": PinBook.Pin(pinned: Self.tool("first"), pinnedAt: 1)])
        let (merged, changed) = here.merging(there)
        #expect(changed.isEmpty && merged == here)
    }

    @Test func theSameDefinitionPinnedAtAnotherMomentIsNoChange() {
        let here = Self.book(["t": PinBook.Pin(pinned: Self.tool("same"), pinnedAt: 1)])
        let there = Self.book(["t": PinBook.Pin(pinned: Self.tool("same"), pinnedAt: 2)])
        #expect(here.merging(there).changed.isEmpty)
    }

    @Test func pinsOnlyOneSideHasAreKeptAndTakenAndAMergeIsStable() {
        let here = PinBook(servers: ["a": ["t": PinBook.Pin(pinned: Self.tool("a"), pinnedAt: 1)]])
        let there = PinBook(servers: ["b": ["t": PinBook.Pin(pinned: Self.tool("b"), pinnedAt: 1)]])
        let (merged, changed) = here.merging(there)
        #expect(changed == ["b"])
        #expect(merged["a", "t"] != nil && merged["b", "t"] != nil)
        #expect(merged.merging(there).changed.isEmpty)
        #expect(there.merging(merged).book == merged)
    }
}
