import Logging
import Synchronization
import Testing
import YrdenConfig

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
    private func take(_ count: Int, from stream: AsyncStream<GatewayEvent>) async -> [GatewayEvent] {
        var events: [GatewayEvent] = []
        for await event in stream {
            events.append(event)
            if events.count == count { break }
        }
        return events
    }

    @Test func addingAServerAppendsItAndAnnouncesIt() async throws {
        let gateway = gateway(spec("a"))
        let events = gateway.events.subscribe()
        try gateway.addServer(spec("b"))
        #expect(gateway.snapshot.order == ["a", "b"])
        let seen = await take(1, from: events)
        guard case .serverAdded(let status) = seen.first else {
            Issue.record("expected serverAdded, got \(seen)")
            return
        }
        #expect(status.id == "b")
        #expect(status.state == .disabled)
    }

    @Test func addingAnExistingIDIsRefused() throws {
        let gateway = gateway(spec("a"))
        #expect(throws: ControlError.duplicateServer("a")) { try gateway.addServer(spec("a")) }
    }

    @Test func removingAServerAnnouncesItAndUnknownIDsAreRefused() async throws {
        let gateway = gateway(spec("a"), spec("b"))
        let events = gateway.events.subscribe()
        try await gateway.removeServer("a")
        #expect(gateway.snapshot.order == ["b"])
        #expect(await take(1, from: events) == [.serverRemoved(id: "a")])
        await #expect(throws: ControlError.unknownServer("a")) { try await gateway.removeServer("a") }
    }

    @Test func replacingWithTheSameSpecRestartsNothing() async throws {
        let gateway = gateway(spec("a"))
        #expect(try await gateway.replaceServer(spec("a")).restarted == false)
        #expect(try await gateway.replaceServer(spec("a", command: "false")).restarted == true)
        #expect(gateway.snapshot.links["a"]?.spec.transport == spec("a", command: "false").transport)
    }

    @Test func connectingADisabledServerIsAConflict() {
        let gateway = gateway(spec("a"))
        #expect(throws: ControlError.self) { try gateway.connectServer("a") }
    }

    @Test func reconcileAddsRemovesRestartsAndKeepsTheNewOrder() async {
        let gateway = gateway(spec("a"), spec("b"), spec("c"))
        let changes = await gateway.reconcile(to: [spec("d"), spec("c", command: "false"), spec("a")])
        #expect(changes.added == ["d"])
        #expect(changes.removed == ["b"])
        #expect(changes.restarted == ["c"])
        #expect(changes.unchanged == ["a"])
        #expect(gateway.snapshot.order == ["d", "c", "a"])
    }

    @Test func aServerKeepsItsLogWhenReconfigured() async throws {
        let gateway = gateway(spec("a"))
        gateway.logRing("a")?.append("before", event: "stderr")
        try await gateway.replaceServer(spec("a", command: "false"))
        #expect(gateway.logRing("a")?.recent().map(\.message) == ["before"])
    }

    /// A supervisor that ignores cancellation for a while, as one busy with a flooding upstream would.
    /// Returns once it runs: a run cancelled before it began would end at once.
    private func startStubbornSupervisor(_ gateway: Gateway, _ id: String, for duration: Duration) async {
        let running = AsyncStream.makeStream(of: Void.self)
        gateway.supervisors.start(id) {
            running.continuation.finish()
            await shielded { try? await Task.sleep(for: duration) }
        }
        for await _ in running.stream {}
    }

    @Test func aRemovalThatOutlastsTheStopLimitIsAppliedAndSaysSo() async throws {
        let gateway = gateway(spec("a"), spec("b"))
        await startStubbornSupervisor(gateway, "a", for: .seconds(30))
        let started = ContinuousClock.now
        let stoppedInTime = try await gateway.removeServer("a", stopLimit: .milliseconds(200))
        let waited = ContinuousClock.now - started
        #expect(!stoppedInTime)
        #expect(waited < .seconds(10), "waited \(waited)")
        #expect(gateway.snapshot.order == ["b"])
        #expect(gateway.snapshot.links["a"] == nil)
    }

    @Test func aServerAddedAgainStartsOnlyAfterItsOldRunHasStopped() async throws {
        let gateway = gateway(spec("a"))
        let order = Mutex<[String]>([])
        let running = AsyncStream.makeStream(of: Void.self)
        gateway.supervisors.start("a") {
            running.continuation.finish()
            await shielded { try? await Task.sleep(for: .milliseconds(500)) }
            order.withLock { $0.append("old run ended") }
        }
        for await _ in running.stream {}
        let stoppedInTime = try await gateway.removeServer("a", stopLimit: .milliseconds(50))
        #expect(!stoppedInTime)
        let newRun = AsyncStream.makeStream(of: Void.self)
        gateway.supervisors.start("a") {
            order.withLock { $0.append("new run started") }
            newRun.continuation.finish()
        }
        for await _ in newRun.stream {}
        #expect(order.withLock { $0 } == ["old run ended", "new run started"])
    }

    @Test func aDisconnectThatOutlastsTheStopLimitShowsDisconnectedOnceStopped() async throws {
        let gateway = gateway(spec("a", disabled: false))
        let events = gateway.events.subscribe()
        await startStubbornSupervisor(gateway, "a", for: .milliseconds(300))
        let stoppedInTime = try await gateway.disconnectServer("a", stopLimit: .milliseconds(50))
        #expect(!stoppedInTime)
        for await event in events {
            if case .serverState(let status) = event, status.state == .disconnected { break }
        }
        #expect(gateway.snapshot.links["a"]?.state == .disconnected)
    }

    @Test func reconcileStopsEveryLeavingServerWithinOneLimit() async throws {
        let gateway = gateway(spec("a"), spec("b"), spec("c"))
        for id in ["a", "b"] { await startStubbornSupervisor(gateway, id, for: .seconds(30)) }
        let started = ContinuousClock.now
        let changes = await gateway.reconcile(to: [spec("c")], stopLimit: .milliseconds(300))
        let waited = ContinuousClock.now - started
        #expect(changes.removed == ["a", "b"])
        #expect(Set(changes.stillStopping) == ["a", "b"])
        // Both waits share the limit: well under twice it, on however loaded a machine.
        #expect(waited < .seconds(5), "waited \(waited)")
        #expect(gateway.snapshot.order == ["c"])
    }
}
