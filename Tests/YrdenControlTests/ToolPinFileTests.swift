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
        #expect(gateway.toolPins.mode == .warn)
        _ = try await store.replaceDocument(["security": ["toolPinning": "enforce"], "mcpServers": [:]])
        #expect(gateway.toolPins.mode == .enforce)
        #expect(gateway.config.security.toolPinning == .enforce)
    }
}
