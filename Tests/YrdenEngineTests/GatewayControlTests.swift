import Logging
import Synchronization
import Testing
import YrdenConfig
import YrdenTesting

@testable import YrdenEngine

/// Adding, replacing and removing servers at runtime, on disabled servers (no process is started), and the
/// events an operator watching the gateway sees for each change.
@Suite struct GatewayControlTests {
    private func spec(_ id: String, command: String = "true", disabled: Bool = true) -> ServerSpec {
        ServerSpec(id: id, transport: .stdio(command: command, args: [], env: [:], cwd: nil), disabled: disabled)
    }

    private func gateway(_ specs: ServerSpec...) -> Gateway {
        Gateway(config: GatewayConfig(servers: specs), logger: Logger(label: "test"))
    }

    /// Collects what `events` delivers until `count` events arrived.
    private func take(_ count: Int, from stream: AsyncStream<SequencedEvent>) async -> [GatewayEvent] {
        var events: [GatewayEvent] = []
        for await numbered in stream {
            events.append(numbered.event)
            if events.count == count { break }
        }
        return events
    }

    @Test func addingAServerAppendsItAndAnnouncesIt() async throws {
        let gateway = gateway(spec("a"))
        let events = gateway.events.subscribe()
        try await gateway.lifecycle.addServer(spec("b"))
        #expect(gateway.snapshot.order == ["a", "b"])
        let seen = await take(1, from: events)
        guard case .serverAdded(let status) = seen.first else {
            Issue.record("expected serverAdded, got \(seen)")
            return
        }
        #expect(status.id == "b")
        #expect(status.state == .disabled)
    }

    @Test func addingAnExistingIDIsRefused() async throws {
        let gateway = gateway(spec("a"))
        await #expect(throws: ControlError.duplicateServer("a")) { try await gateway.lifecycle.addServer(spec("a")) }
    }

    @Test func removingAServerAnnouncesItAndUnknownIDsAreRefused() async throws {
        let gateway = gateway(spec("a"), spec("b"))
        let events = gateway.events.subscribe()
        try await gateway.lifecycle.removeServer("a")
        #expect(gateway.snapshot.order == ["b"])
        #expect(await take(1, from: events) == [.serverRemoved(id: "a")])
        await #expect(throws: ControlError.unknownServer("a")) { try await gateway.lifecycle.removeServer("a") }
    }

    @Test func replacingWithTheSameSpecRestartsNothing() async throws {
        let gateway = gateway(spec("a"))
        #expect(try await gateway.lifecycle.replaceServer(spec("a")).restarted == false)
        #expect(try await gateway.lifecycle.replaceServer(spec("a", command: "false")).restarted == true)
        #expect(gateway.snapshot.links["a"]?.spec.transport == spec("a", command: "false").transport)
    }

    @Test func connectingADisabledServerIsAConflict() async {
        let gateway = gateway(spec("a"))
        await #expect(throws: ControlError.self) { try await gateway.lifecycle.connectServer("a") }
    }

    @Test func reconcileAddsRemovesRestartsAndKeepsTheNewOrder() async {
        let gateway = gateway(spec("a"), spec("b"), spec("c"))
        let changes = await gateway.lifecycle.reconcile(to: [spec("d"), spec("c", command: "false"), spec("a")])
        #expect(changes.added == ["d"])
        #expect(changes.removed == ["b"])
        #expect(changes.restarted == ["c"])
        #expect(changes.unchanged == ["a"])
        #expect(gateway.snapshot.order == ["d", "c", "a"])
    }

    @Test func aServerKeepsItsLogWhenReconfigured() async throws {
        let gateway = gateway(spec("a"))
        gateway.registry.logRing("a")?.append("before", event: "stderr")
        try await gateway.lifecycle.replaceServer(spec("a", command: "false"))
        #expect(gateway.registry.logRing("a")?.recent().map(\.message) == ["before"])
    }

    /// A running gateway whose servers take `closeDelay` to close, as a busy child process slow to exit
    /// would; returns once every one of them is connected.
    private func slowToStop(_ ids: [String], closeDelay: Duration) async -> RunningGateway {
        let channels = FakeUpstreams(FakeUpstreamScript(closeDelay: closeDelay))
        let running = RunningGateway(ids.map { stdioSpec($0) }, channels: channels)
        await running.until { snapshot in ids.allSatisfy { snapshot.links[$0]?.state.isConnected == true } }
        return running
    }

    @Test func aRemovalThatOutlastsTheStopLimitIsAppliedAndSaysSo() async throws {
        let running = await slowToStop(["a", "b"], closeDelay: .seconds(3))
        let gateway = running.gateway
        let started = ContinuousClock.now
        let stoppedInTime = try await gateway.lifecycle.removeServer("a", stopLimit: .milliseconds(200))
        let waited = ContinuousClock.now - started
        #expect(!stoppedInTime)
        #expect(waited < .seconds(2), "waited \(waited)")
        #expect(gateway.snapshot.order == ["b"])
        #expect(gateway.snapshot.links["a"] == nil)
        running.task.cancel()
    }

    @Test func aServerAddedAgainStartsOnlyAfterItsOldRunHasStopped() async throws {
        let running = await slowToStop(["a"], closeDelay: .milliseconds(500))
        let gateway = running.gateway
        let stoppedInTime = try await gateway.lifecycle.removeServer("a", stopLimit: .milliseconds(50))
        #expect(!stoppedInTime)
        try await gateway.lifecycle.addServer(stdioSpec("a"))
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        #expect(running.channels.journal.elements == ["open a", "closed a", "open a"])
        await running.stop()
    }

    @Test func aDisconnectThatOutlastsTheStopLimitShowsDisconnectedOnceStopped() async throws {
        let running = await slowToStop(["a"], closeDelay: .milliseconds(300))
        let gateway = running.gateway
        let stoppedInTime = try await gateway.lifecycle.disconnectServer("a", stopLimit: .milliseconds(50))
        #expect(!stoppedInTime)
        #expect(await running.until { $0.links["a"]?.state == .disconnected })
        #expect(gateway.snapshot.links["a"]?.state == .disconnected)
        await running.stop()
    }

    @Test func reconcileStopsEveryLeavingServerWithinOneLimit() async throws {
        let running = await slowToStop(["a", "b", "c"], closeDelay: .seconds(3))
        let gateway = running.gateway
        let started = ContinuousClock.now
        let changes = await gateway.lifecycle.reconcile(to: [stdioSpec("c")], stopLimit: .milliseconds(300))
        let waited = ContinuousClock.now - started
        #expect(changes.removed == ["a", "b"])
        #expect(Set(changes.stillStopping) == ["a", "b"])
        // Both waits share the limit: well under twice it, on however loaded a machine.
        #expect(waited < .seconds(2), "waited \(waited)")
        #expect(gateway.snapshot.order == ["c"])
        running.task.cancel()
    }
}
