import Foundation
import Logging
import Synchronization
import Testing
import YrdenConfig
import YrdenProtocol

@testable import YrdenControl
@testable import YrdenEngine

/// The config file watcher: inotify on the file's directory sees editors' rename-replacements, ignores other
/// entries, stops when its reader does, and drives reloads through the store.
@Suite struct ConfigWatchTests {
    private func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "yrden-watch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Writes `text` beside `path` and renames it over `path`, as editors and the store do.
    private func replace(_ path: String, with text: String) throws {
        let temporary = path + ".edit"
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
        try FileManager.default.moveItem(atPath: temporary, toPath: path + ".moving")
        guard rename(path + ".moving", path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Counts the signals of `events` until the test ends (cancelling an iteration would end the stream).
    private func counting(_ events: AsyncStream<Void>) -> (count: @Sendable () -> Int, task: Task<Void, Never>) {
        let count = Mutex(0)
        let task = Task { for await _ in events { count.withLock { $0 += 1 } } }
        return ({ count.withLock { $0 } }, task)
    }

    /// Waits until `condition` holds, at most `limit` (generous: a lasting condition, so the limit only matters
    /// when it is broken).
    private func eventually(within limit: Duration, _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await condition()
    }

    static let oneServer = #"{"mcpServers": {"a": {"command": "true", "disabled": true}}}"#
    static let twoServers =
        #"{"mcpServers": {"a": {"command": "true", "disabled": true}, "b": {"command": "true", "disabled": true}}}"#

    /// A store of `path`, written with ``oneServer`` first, and the gateway it changes.
    private func storeAndGateway(at path: String) throws -> (ConfigStore, Gateway) {
        try Data(Self.oneServer.utf8).write(to: URL(fileURLWithPath: path))
        let document = try ConfigDocument(parsing: Array(Self.oneServer.utf8), source: path)
        let config = try document.decoded(environment: [:], source: path)
        let gateway = Gateway(config: config, logger: Logger(label: "test"))
        let store = ConfigStore(
            document: document,
            path: path,
            environment: [:],
            gateway: gateway,
            logger: Logger(label: "test")
        )
        return (store, gateway)
    }

    @Test func aRenameOverTheWatchedNameIsSeenAndOtherEntriesAreNot() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/config.json"
        try Data("{}".utf8).write(to: URL(fileURLWithPath: path))
        let (signals, task) = counting(try DirectoryEvents.watch(directory, names: ["config.json"]))
        defer { task.cancel() }
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory + "/unrelated"))
        try await Task.sleep(for: .milliseconds(300))
        #expect(signals() == 0, "another entry raised a signal")
        try replace(path, with: #"{"mcpServers": {}}"#)
        #expect(await eventually(within: .seconds(30)) { signals() > 0 }, "the rename-replacement was not seen")
    }

    @Test func theStreamEndsWhenTheDirectoryIsRemoved() async throws {
        let directory = try temporaryDirectory()
        let events = try DirectoryEvents.watch(directory, names: ["config.json"])
        try FileManager.default.removeItem(atPath: directory)
        let ended = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in events {}
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(ended, "the stream did not end when its directory went away")
    }

    @Test func aMissingDirectoryCannotBeWatched() {
        #expect(throws: DirectoryEvents.Unavailable.self) {
            _ = try DirectoryEvents.watch("/nonexistent-\(UUID().uuidString)", names: nil)
        }
    }

    @Test func inotifyRecordsAreReadWithTheirPaddedNames() {
        func record(mask: UInt32, name: String, padded length: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            for word in [UInt32(1), mask, 0, UInt32(length)] { withUnsafeBytes(of: word) { bytes += $0 } }
            return bytes + Array(name.utf8) + Array(repeating: 0, count: length - name.utf8.count)
        }
        let buffer = record(mask: 0x80, name: "config.json", padded: 16) + record(mask: 0x8000, name: "", padded: 0)
        let events = Array(InotifyEvents(buffer[...]))
        #expect(events.map(\.name) == ["config.json", ""])
        #expect(events.map(\.mask) == [0x80, 0x8000])
        #expect(Array(InotifyEvents(buffer[..<10])).isEmpty, "a truncated header is not read")
    }

    @Test func theInnermostMountDecidesWhetherInotifyIsTrusted() {
        let table = MountTable(
            text: """
                22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw
                30 22 0:40 / /srv/share rw - nfs4 server:/export rw
                31 30 0:41 / /srv/share/local rw - tmpfs tmpfs rw
                32 22 0:42 / /mnt/with\\040space rw - fuse.grpcfuse grpcfuse rw

                """
        )
        #expect(table.type(of: "/etc") == "ext4")
        #expect(table.type(of: "/srv/share/conf") == "nfs4")
        #expect(table.type(of: "/srv/share/local/conf") == "tmpfs")
        #expect(table.type(of: "/srv/shared") == "ext4", "a mount point is matched by whole components")
        #expect(table.unreliableFileSystem(of: "/srv/share") == "nfs4")
        #expect(table.unreliableFileSystem(of: "/mnt/with space") == "fuse.grpcfuse")
        #expect(table.unreliableFileSystem(of: "/etc") == nil)
    }

    @Test func aLostWatchFallsBackToPolling() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/config.json"
        let (store, gateway) = try storeAndGateway(at: path)
        let service = Task { try await ConfigReloadService(store: store, logger: Logger(label: "test")).run() }
        defer { service.cancel() }
        try await Task.sleep(for: .milliseconds(200))
        // The directory goes away (the watch with it) and comes back: only polling can see the new file.
        try FileManager.default.removeItem(atPath: directory)
        try await Task.sleep(for: ConfigReloadService.settleDelay * 3)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(Self.twoServers.utf8).write(to: URL(fileURLWithPath: path))
        // The polls it takes: the limit only matters when polling is broken, so it allows for a loaded machine.
        #expect(
            await eventually(within: ConfigReloadService.pollInterval * 3 + .seconds(30)) {
                gateway.snapshot.order == ["a", "b"]
            }
        )
    }

    @Test func anEditOfTheFileIsReloadedWithoutSIGHUP() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/config.json"
        let (store, gateway) = try storeAndGateway(at: path)
        let service = Task { try await ConfigReloadService(store: store, logger: Logger(label: "test")).run() }
        defer { service.cancel() }
        // Made whenever the watch is in place, or before: the service compares the file with what was loaded.
        try replace(path, with: Self.twoServers)
        #expect(await eventually(within: .seconds(30)) { gateway.snapshot.order == ["a", "b"] })
        #expect(await store.redactedEntry("b") != nil)
    }
}
