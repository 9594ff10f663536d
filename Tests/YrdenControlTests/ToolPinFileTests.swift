import Foundation
import Logging
import Testing
import YrdenConfig
import YrdenEngine
import YrdenProtocol
import YrdenStorage

@testable import YrdenControl

/// The pins on disk: private, replaced whole, read back as written; a file that is not pins is refused with
/// what to do; and `security.toolPinning` changes with the config, no restart needed.
@Suite struct ToolPinFileTests {
    /// A directory of its own for one test (`…/data`, whose parent `remove` deletes).
    private func temporaryDirectory() -> String {
        NSTemporaryDirectory() + "yrden-pins-\(UUID().uuidString)/data"
    }

    private func remove(_ directory: String) {
        try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent)
    }

    private static func book() -> PinBook {
        var book = PinBook()
        _ = book.observe("s", tools: [ToolDefinition(tool: ["name": "a", "description": "A"])], at: 1)
        _ = book.observe("s", tools: [ToolDefinition(tool: ["name": "a", "description": "B"])], at: 2)
        return book
    }

    @Test func pinsAreSavedPrivatelyAndReadBack() throws {
        let directory = temporaryDirectory()
        defer { remove(directory) }
        let store = try FileToolPinStore(directory: directory)
        #expect(try store.load() == PinBook(), "no file yet: nothing pinned")
        try store.save(Self.book())
        #expect(store.path == directory + "/tool-pins.json")
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let reopened = try FileToolPinStore(directory: directory)
        #expect(try reopened.load() == Self.book())
    }

    /// A restart holds digests, not definitions: every definition read is kept in the file, and read again
    /// from it (for a diff, a listing of pins or a save) as it was written.
    @Test func aStartKeepsDefinitionsInTheFileAndReadsThemAgain() throws {
        let directory = temporaryDirectory()
        defer { remove(directory) }
        var book = Self.book()
        _ = book.observe(
            "t",
            tools: [ToolDefinition(tool: ["name": "é\"q", "inputSchema": ["type": "object"]])],
            at: 3
        )
        try FileToolPinStore(directory: directory).save(book)
        let store = try FileToolPinStore(directory: directory)
        let read = try store.load()
        #expect(read == book)
        let pin = try #require(read["s", "a"])
        #expect(pin.pinned.isStored && pin.pending?.isStored == true && read["t", "é\"q"]?.pinned.isStored == true)
        #expect(
            pin.pinned.json == ["name": "a", "description": "A"]
                && pin.pending?.json == ["name": "a", "description": "B"]
        )
        #expect(pin.changedFields == ["description"])
        #expect(read["t", "é\"q"]?.pinned.name == "é\"q")
        // Saved again over the file it was read from (each definition copied as it was), and read back once more.
        let written = try #require(try AtomicFile.read(store.path))
        try store.save(read)
        #expect(try AtomicFile.read(store.path) == written)
        #expect(try store.load() == book)
        #expect(try store.load()["s", "a"]?.pending?.json == ["name": "a", "description": "B"])
    }

    /// Approvals made while nothing else changed are lines of the journal, not a new pin file: the file is left
    /// as it was, and a start finds them made (and writes the file whole, ending the journal); a line cut short
    /// at the end, its approval never answered, is not read.
    @Test func approvalsAreJournaledAndAStartAppliesThem() throws {
        let directory = temporaryDirectory()
        defer { remove(directory) }
        let store = try FileToolPinStore(directory: directory)
        var book = Self.book()
        try store.save(book)
        let written = try #require(try AtomicFile.read(store.path))
        let pending = try #require(book["s", "a"]?.pending?.digest)
        _ = book.approve("s", tool: "a", at: 5)
        try store.saveApprovals([PinApproval(server: "s", tool: "a", digest: pending, pinnedAt: 5)], of: book)
        #expect(try AtomicFile.read(store.path) == written, "the pin file is not rewritten")
        let partial = Array(#"{"server": "s", "tool": "b", "dig"#.utf8)
        try AtomicFile.appendDurably(partial, to: store.journal.path, mode: 0o600)

        let read = try FileToolPinStore(directory: directory).load()
        #expect(read == book && read["s", "a"]?.isChanged == false && read["s", "a"]?.pinnedAt == 5)
        #expect(try AtomicFile.read(store.journal.path) == nil, "the start wrote the file whole and ended the journal")
        #expect(try FileToolPinStore(directory: directory).load() == book)
    }

    /// A journal line applied to a file that holds it already (the process died between writing the file
    /// whole and removing the journal) changes nothing; a line that is no approval stops the start.
    @Test func aJournalLineIsAppliedOnceAndABrokenOneIsRefused() throws {
        let directory = temporaryDirectory()
        defer { remove(directory) }
        let store = try FileToolPinStore(directory: directory)
        var book = Self.book()
        let pending = try #require(book["s", "a"]?.pending?.digest)
        _ = book.approve("s", tool: "a", at: 5)
        try store.save(book)
        try store.saveApprovals([PinApproval(server: "s", tool: "a", digest: pending, pinnedAt: 9)], of: book)
        #expect(try store.load() == book)
        try AtomicFile.appendDurably(Array("not json\n".utf8), to: store.journal.path, mode: 0o600)
        #expect {
            try store.load()
        } throws: { error in
            (error as? StorageError)?.kind == .malformed && "\(error)".contains("remove the journal")
        }
    }

    /// A definition that can no longer be read from the file a start read (here the file was cut short in
    /// place) fails the save: the file is left as it is rather than replaced by one without the definition.
    @Test func aSaveThatCannotReadADefinitionLeavesTheFileAsItWas() throws {
        let directory = temporaryDirectory()
        defer { remove(directory) }
        let store = try FileToolPinStore(directory: directory)
        try store.save(Self.book())
        let read = try store.load()
        #expect(truncate(store.path, 10) == 0)
        #expect(throws: StorageError.self) { try store.save(read) }
        #expect(try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int == 10)
    }

    /// Only the structure is skipped unparsed: every value in the file is still checked.
    @Test func aFileWithBrokenJSONAnywhereIsRefused() throws {
        let directory = temporaryDirectory()
        defer { remove(directory) }
        let store = try FileToolPinStore(directory: directory)
        for text in [
            #"{"version": 1, "servers": {}, "other": [1,,2]}"#,
            #"{"version": 1, "servers": {"s": {"a": {"pinned": {"name": "a"}, "pinnedAt": 1,}}}}"#,
            #"{"version": 1, "servers": {"s": {"a": {"pinned": {"name": "a" "x": 1}, "pinnedAt": 1}}}}"#,
            #"{"version": 1, "servers": {"s": {"a": {"pinned": {"name": "a"}, "pinnedAt": 1}}}} x"#,
            #"{"version": 1, "servers": {"s": {"a": {"pinned": {"name": "a"}, "pinnedAt": 1}]}}"#,
            #"{"version": 1, "servers": {"s": {"a": {"pinned": "a", "pinnedAt": 1}}}}"#,
        ] {
            try AtomicFile.write(Array(text.utf8), to: store.path, mode: 0o600)
            #expect(throws: StorageError.self, "\(text)") { try store.load() }
        }
        try AtomicFile.write(
            Array(#" {"servers": {"s": {"a": {"pinnedAt": 1, "pinned": {"name": "a"}}}}, "version": 1} "#.utf8),
            to: store.path,
            mode: 0o600
        )
        #expect(try store.load()["s", "a"]?.pinned.json == ["name": "a"])
    }

    @Test func aFileThatIsNotPinsIsRefusedWithWhatToDo() throws {
        let directory = temporaryDirectory()
        defer { remove(directory) }
        let store = try FileToolPinStore(directory: directory)
        try AtomicFile.write(Array(#"{"version": 1}"#.utf8), to: store.path, mode: 0o600)
        #expect {
            try store.load()
        } throws: { error in
            let storage = error as? StorageError
            return storage?.kind == .malformed && storage?.fix.contains("remove it") == true
                && storage?.message.contains(store.path) == true
        }
    }

    @Test func theModeFollowsTheConfigWithoutARestart() async throws {
        let document = ConfigDocument(["security": ["toolPinning": "warn"], "mcpServers": [:]])
        let config = try document.decoded(environment: [:], source: "test")
        let gateway = Gateway(config: config, logger: Logger(label: "test"))
        let store = ConfigStore(
            document: document,
            path: nil,
            environment: [:],
            gateway: gateway,
            logger: Logger(label: "test")
        )
        #expect(gateway.pinning.mode == .warn)
        _ = try await store.replaceDocument(["security": ["toolPinning": "enforce"], "mcpServers": [:]])
        #expect(gateway.pinning.mode == .enforce)
        #expect(gateway.config.security.toolPinning == .enforce)
    }
}
