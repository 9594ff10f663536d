import Foundation
import Logging
import Testing
import YrdenConfig
import YrdenProtocol

@testable import YrdenControl
@testable import YrdenEngine

/// Operators' changes through the config store: one at a time from check to applied state, versioned for
/// read-modify-write clients, and bounded in how long they wait for a server to stop.
@Suite struct ConfigStoreTests {
    private static let disabledEntry: JSONValue = ["command": "true", "disabled": true]

    private func store(
        _ ids: String...,
        path: String? = nil,
        stopLimit: Duration = .seconds(10)
    ) -> (ConfigStore, Gateway) {
        var servers = JSONObject()
        for id in ids { servers[id] = Self.disabledEntry }
        let document = ConfigDocument(["mcpServers": .object(servers)])
        let config = try! document.decoded(environment: [:], source: "test")
        let gateway = Gateway(config: config, logger: Logger(label: "test"))
        let store = ConfigStore(
            document: document,
            path: path,
            environment: [:],
            gateway: gateway,
            logger: Logger(label: "test"),
            stopLimit: stopLimit
        )
        return (store, gateway)
    }

    private func temporaryPath() -> String {
        NSTemporaryDirectory() + "yrden-store-\(UUID().uuidString).json"
    }

    @Test func parallelAddsAndRemovesOfOneIDAlternateAndLeaveFileAndGatewayAgreeing() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (store, gateway) = store("racer", path: path)
        let outcomes = await withTaskGroup(of: (Bool, Bool).self) { group in
            for index in 0..<100 {
                group.addTask {
                    if index % 2 == 0 {
                        return (true, (try? await store.addServer(id: "racer", entry: Self.disabledEntry)) != nil)
                    }
                    return (false, (try? await store.removeServer(id: "racer")) != nil)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let added = outcomes.filter { $0 == (true, true) }.count
        let removed = outcomes.filter { $0 == (false, true) }.count
        #expect(removed - added == 0 || removed - added == 1)
        let present = removed == added
        #expect((gateway.snapshot.links["racer"] != nil) == present)
        #expect((await store.redactedEntry("racer") != nil) == present)
        let file = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect((file["mcpServers"]?["racer"] != nil) == present)
    }

    @Test func aWriteConditionalOnAStaleVersionIsRefusedAndChangesNothing() async throws {
        let (store, gateway) = store("a")
        let (_, first) = await store.redactedDocument()
        #expect(await store.redactedDocument().etag == first, "reading does not change the version")
        let entryTag = try #require(await store.entryTag("a"))
        try await store.addServer(id: "b", entry: Self.disabledEntry)
        let (_, second) = await store.redactedDocument()
        #expect(second != first)
        #expect(await store.entryTag("a") == entryTag, "another server's change keeps this entry's version")
        await #expect(throws: ConfigStoreError.self) {
            _ = try await store.replaceDocument(["mcpServers": [:]], expecting: .oneOf([first]))
        }
        #expect(gateway.snapshot.order == ["a", "b"])
        let changes = try await store.replaceDocument(
            ["mcpServers": ["a": Self.disabledEntry]],
            expecting: .oneOf([second])
        )
        #expect(changes.removed == ["b"])
        await #expect(throws: ConfigStoreError.self) {
            try await store.removeServer(id: "a", expecting: .oneOf(["\"stale\""]))
        }
        try await store.removeServer(id: "a", expecting: .oneOf([entryTag]))
        #expect(gateway.snapshot.order.isEmpty)
    }

    @Test func aRemovalThatOutlastsTheStopLimitIsSavedAppliedAndReported() async throws {
        let (store, gateway) = store(stopLimit: .milliseconds(100))
        let run = Task { await gateway.run() }
        defer { run.cancel() }
        // A child that ignores its closed stdin: it stops only at the SIGTERM sent 2 s later.
        try await store.addServer(id: "a", entry: ["command": "sleep", "args": ["30"]])
        let deadline = ContinuousClock.now + .seconds(5)
        while gateway.snapshot.links["a"]?.state.name != "connecting", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        do {
            try await store.removeServer(id: "a")
            Issue.record("the removal did not report the server still stopping")
        } catch {
            guard case .stillStopping(let late) = error else { throw error }
            #expect(late.servers == ["a"])
            #expect(
                late.description.hasPrefix(
                    "server 'a' did not stop within 100 ms; it is being stopped in the background"
                )
            )
        }
        #expect(gateway.snapshot.links["a"] == nil)
        #expect(await store.redactedEntry("a") == nil)
    }

    @Test func theGateRefusesPastItsQueue() async throws {
        let gate = ChangeGate(maxWaiting: 0)
        try await gate.enter()
        await #expect(throws: ChangeGate.Refusal.queueFull(waiting: 0)) { try await gate.enter() }
        gate.leave()
        try await gate.enter()
        gate.leave()
    }

    @Test func theGateRefusesPastItsWaitAndThenServesInOrder() async throws {
        let gate = ChangeGate(maxWait: .milliseconds(100))
        try await gate.enter()
        await #expect(throws: ChangeGate.Refusal.waitedTooLong(limit: .milliseconds(100))) { try await gate.enter() }
        gate.leave()
        try await gate.enter()
        gate.leave()
    }
}
