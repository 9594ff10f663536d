import Testing
import YrdenProtocol

@testable import YrdenEngine

/// The pin book's state machine: first sight pins, a change waits for approval with the pinned definition
/// kept, approval pins the new one, changing back clears the change; and its bounds and saved form.
@Suite struct PinBookTests {
    private static func tool(_ name: String, _ description: String) -> ToolDefinition {
        ToolDefinition(tool: ["name": .string(name), "description": .string(description)])
    }

    @Test func firstSightPinsAndTheSameListingChangesNothing() {
        var book = PinBook()
        let first = book.observe("s", tools: [Self.tool("a", "A"), Self.tool("b", "B")], at: 1)
        #expect(first.newPins == 2 && first.changes.isEmpty && first.modified)
        let again = book.observe("s", tools: [Self.tool("b", "B"), Self.tool("a", "A")], at: 2)
        #expect(again == PinBook.Observation())
        #expect(book["s", "a"]?.pinned == Self.tool("a", "A"))
        #expect(book.changedTools(of: "s").isEmpty)
    }

    @Test func aChangeKeepsThePinnedDefinitionAndWaits() throws {
        var book = PinBook()
        _ = book.observe("s", tools: [Self.tool("a", "A")], at: 1)
        let changed = book.observe("s", tools: [Self.tool("a", "A, and more")], at: 2)
        let change = try #require(changed.changes.first)
        #expect(change.kind == .changed && change.tool == "a" && change.server == "s")
        #expect(change.diff.fields == ["description"])
        #expect(book["s", "a"]?.pinned == Self.tool("a", "A"))
        #expect(book["s", "a"]?.pending == Self.tool("a", "A, and more"))
        #expect(book["s", "a"]?.changedAt == 2)
        #expect(book.changedTools(of: "s") == ["a": ["description"]])
        // Listed the same again: still one change, not announced twice.
        #expect(book.observe("s", tools: [Self.tool("a", "A, and more")], at: 3).changes.isEmpty)
        // A different change replaces the pending one, and is announced against the pinned definition.
        let again = try #require(book.observe("s", tools: [Self.tool("a", "A!")], at: 4).changes.first)
        #expect(again.kind == .changed && again.from == Self.tool("a", "A") && again.to == Self.tool("a", "A!"))
    }

    @Test func approvalPinsThePendingDefinition() throws {
        var book = PinBook()
        _ = book.observe("s", tools: [Self.tool("a", "A")], at: 1)
        _ = book.observe("s", tools: [Self.tool("a", "B")], at: 2)
        let approved = try book.approve("s", tool: "a", at: 3).get()
        #expect(approved.kind == .approved && approved.to == Self.tool("a", "B"))
        #expect(book["s", "a"] == PinBook.Pin(pinned: Self.tool("a", "B"), pinnedAt: 3))
        #expect(book.observe("s", tools: [Self.tool("a", "B")], at: 4).changes.isEmpty)
        #expect(book.observe("s", tools: [Self.tool("a", "A")], at: 5).changes.first?.kind == .changed)
    }

    @Test func approvalIsRefusedWithNothingPendingOrAnotherDigest() {
        var book = PinBook()
        _ = book.observe("s", tools: [Self.tool("a", "A")], at: 1)
        #expect(book.approve("s", tool: "x", at: 2) == .failure(.unknownTool(server: "s", tool: "x")))
        #expect(book.approve("s", tool: "a", at: 2) == .failure(.nothingPending(server: "s", tool: "a")))
        _ = book.observe("s", tools: [Self.tool("a", "B")], at: 3)
        let pending = Self.tool("a", "B").digest
        #expect(
            book.approve("s", tool: "a", digest: Self.tool("a", "C").digest, at: 4)
                == .failure(.digestMismatch(server: "s", tool: "a", pending: pending))
        )
        #expect((try? book.approve("s", tool: "a", digest: pending, at: 4).get()) != nil)
    }

    @Test func changingBackToThePinnedDefinitionIsNoLongerAChange() throws {
        var book = PinBook()
        _ = book.observe("s", tools: [Self.tool("a", "A")], at: 1)
        _ = book.observe("s", tools: [Self.tool("a", "B")], at: 2)
        let reverted = try #require(book.observe("s", tools: [Self.tool("a", "A")], at: 3).changes.first)
        #expect(reverted.kind == .reverted && reverted.from == Self.tool("a", "B"))
        #expect(book["s", "a"]?.isChanged == false)
        #expect(book.changedTools(of: "s").isEmpty)
    }

    @Test func aToolThatLeavesAndComesBackChangedIsCaught() {
        var book = PinBook()
        _ = book.observe("s", tools: [Self.tool("a", "A")], at: 1)
        _ = book.observe("s", tools: [], at: 2)
        #expect(book["s", "a"]?.unlistedAt == 2)
        let back = book.observe("s", tools: [Self.tool("a", "evil")], at: 3)
        #expect(back.newPins == 0 && back.changes.map(\.kind) == [.changed])
        #expect(book["s", "a"]?.unlistedAt == nil)
    }

    @Test func unlistedPinsAreBoundedOldestFirst() {
        var book = PinBook()
        let many = (0..<(PinBook.maxUnlisted + 5)).map { Self.tool("t\($0)", "x") }
        _ = book.observe("s", tools: many, at: 1)
        _ = book.observe("s", tools: Array(many.dropFirst(5)), at: 2)  // t0…t4 leave first
        _ = book.observe("s", tools: [], at: 3)
        let kept = book.servers["s"] ?? [:]
        #expect(kept.count == PinBook.maxUnlisted)
        #expect(kept["t0"] == nil && kept["t4"] == nil && kept["t5"] != nil)
    }

    @Test func serversNotConfiguredLoseTheirPins() {
        var book = PinBook()
        _ = book.observe("a", tools: [Self.tool("x", "X")], at: 1)
        _ = book.observe("b", tools: [Self.tool("x", "X")], at: 1)
        let dropped = book.keepOnly(["a"])
        let droppedAgain = book.keepOnly(["a"])
        #expect(dropped && !droppedAgain)
        #expect(Set(book.servers.keys) == ["a"])
    }

    @Test func theSavedFormReadsBackAndItsDigestsAreComputedAgain() throws {
        var book = PinBook()
        _ = book.observe("s", tools: [Self.tool("a", "A"), Self.tool("b", "B")], at: 1.5)
        _ = book.observe("s", tools: [Self.tool("a", "A2")], at: 2.5)
        let text = book.json.jsonText
        let read = try PinBook(json: try JSONValue.parse(Array(text.utf8)))
        #expect(read == book)
        #expect(read["s", "a"]?.pending?.digest == Self.tool("a", "A2").digest)
        #expect(throws: PinBookFormatError.self) { try PinBook(json: ["version": 2, "servers": [:]]) }
        #expect(throws: PinBookFormatError.self) { try PinBook(json: ["version": 1, "servers": ["s": ["a": [:]]]]) }
    }

    @Test func theSavedFormIsWrittenInPiecesThatMakeTheWholeText() throws {
        var book = PinBook()
        _ = book.observe("s", tools: [Self.tool("a", "A"), Self.tool("b", "B")], at: 1.5)
        _ = book.observe("t", tools: [Self.tool("a", "A")], at: 1.5)
        _ = book.observe("s", tools: [Self.tool("a", "A2")], at: 2.5)
        var pieces: [[UInt8]] = []
        try book.writePrettyJSON(pieceBytes: 1) { pieces.append($0) }
        #expect(pieces.count == 3, "one piece a server, then the document's end")
        #expect(pieces.joined().elementsEqual(book.json.prettySerialized()))
        #expect(try PinBook(json: try JSONValue.parse(Array(pieces.joined()))) == book)
    }

    @Test func aDefinitionTooLargeToPinIsRefusedAndAPinKeepsWhatItHad() {
        var book = PinBook()
        let huge = String(repeating: "x", count: PinBook.maxDefinitionBytes)
        let first = book.observe("s", tools: [Self.tool("a", "A"), Self.tool("b", huge)], at: 1)
        #expect(first.refused.map(\.tool) == ["b"] && first.refused.first?.bookFull == false)
        #expect(first.newPins == 1 && book["s", "b"] == nil)
        let changed = book.observe("s", tools: [Self.tool("a", huge)], at: 2)
        #expect(changed.refused.map(\.tool) == ["a"] && changed.changes.isEmpty)
        #expect(book["s", "a"]?.pinned == Self.tool("a", "A") && book["s", "a"]?.pending == nil)
        #expect(book["s", "a"]?.unlistedAt == nil, "a refused tool is still listed")
    }

    @Test func definitionsThatWouldPassTheBooksBoundAreRefused() {
        var book = PinBook()
        let large = String(repeating: "y", count: PinBook.maxDefinitionBytes - 100)
        let count = PinBook.maxBookBytes / PinBook.maxDefinitionBytes + 2
        let tools = (0..<count).map { Self.tool("t\($0)", large + "\($0)") }
        let observation = book.observe("s", tools: tools, at: 1)
        #expect(observation.newPins == PinBook.maxBookBytes / PinBook.maxDefinitionBytes)
        #expect(!observation.refused.isEmpty && observation.refused.allSatisfy(\.bookFull))
        #expect(book.storedBytes <= PinBook.maxBookBytes)
    }

    /// The changed fields and the bytes held are kept as the book changes (not found again at every listing or
    /// approval, which made 2,000 changed tools quadratic): at each step they equal what a fresh look finds.
    @Test func changedFieldsAndStoredBytesFollowEveryStep() throws {
        var book = PinBook()
        func check() throws {
            let fresh = try PinBook(json: try JSONValue.parse(Array(book.json.jsonText.utf8)))
            #expect(book.storedBytes == fresh.storedBytes)
            for server in book.servers.keys {
                #expect(book.changedTools(of: server) == fresh.changedTools(of: server))
            }
        }
        _ = book.observe("s", tools: [Self.tool("a", "A"), Self.tool("b", "B")], at: 1)
        try check()
        _ = book.observe("s", tools: [Self.tool("a", "A2"), Self.tool("b", "B")], at: 2)
        #expect(book.changedTools(of: "s") == ["a": ["description"]])
        try check()
        let renamed = ToolDefinition(tool: ["name": "a", "description": "A2", "title": "Now titled"])
        _ = book.observe("s", tools: [renamed, Self.tool("b", "B")], at: 3)
        #expect(book.changedTools(of: "s") == ["a": ["title", "description"]])
        try check()
        _ = try book.approve("s", tool: "a", at: 4).get()
        #expect(book.changedTools(of: "s").isEmpty && book["s", "a"]?.changedFields == [])
        try check()
        _ = book.observe("s", tools: [Self.tool("a", "A")], at: 5)
        #expect(book.changedTools(of: "s") == ["a": ["title", "description"]])
        _ = book.observe("s", tools: [renamed], at: 6)
        #expect(book.changedTools(of: "s").isEmpty, "back to the pinned definition")
        try check()
        _ = book.observe("t", tools: [Self.tool("x", "X")], at: 7)
        book.keepOnly(["t"])
        try check()
        #expect(book.storedBytes == Self.tool("x", "X").canonicalBytes)
    }
}

/// A server's pins in one sorted array: found, replaced, added and removed by name as a dictionary would be.
@Suite struct ServerPinsTests {
    private static func pin(_ description: String) -> PinBook.Pin {
        PinBook.Pin(pinned: ToolDefinition(tool: ["name": "t", "description": .string(description)]), pinnedAt: 1)
    }

    @Test func behavesAsADictionaryByName() {
        var reference: [String: PinBook.Pin] = [:]
        var pins = ServerPins()
        let names = ["m", "b", "z", "a", "q", "b", "c"]
        for (index, name) in names.enumerated() {
            reference[name] = Self.pin("\(index)")
            pins[name] = Self.pin("\(index)")
        }
        for name in ["q", "nothing", "a"] {
            reference[name] = nil
            pins[name] = nil
        }
        #expect(pins.dictionary == reference)
        #expect(pins.keys == reference.keys.sorted())
        #expect(pins.count == reference.count && pins["b"] == Self.pin("5") && pins["q"] == nil)
        #expect(ServerPins(reference) == pins)
        #expect(Array(pins.map(\.key)) == pins.keys)
    }
}
