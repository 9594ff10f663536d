import Logging
import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// The gate that holds the first `initialize` and lists: opened by readiness, bounded by its deadline.
@Suite struct StartupGateTests {
    @Test func aGateWhoseDeadlinePassedIsOpen() async {
        let gate = StartupGate(deadline: .now)
        #expect(gate.isOpen)
        await gate.wait()
    }

    @Test func openingReleasesEveryWaiter() async {
        let gate = StartupGate(deadline: .now + .seconds(600))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { await gate.wait() } }
            gate.open()
            await group.waitForAll()
        }
        #expect(gate.isOpen)
    }

    /// The deadline ends the wait; the gateway opens the gate once it has merged what it held back.
    @Test func theDeadlineEndsTheWait() async {
        let gate = StartupGate(deadline: .now + .milliseconds(50))
        await gate.wait()
        #expect(gate.deadlinePassed)
        #expect(!gate.isOpen)
    }

    @Test func cancellingAWaiterEndsOnlyItsWait() async {
        let gate = StartupGate(deadline: .now + .seconds(600))
        let waiter = Task { await gate.wait() }
        waiter.cancel()
        await waiter.value
        #expect(!gate.isOpen)
    }
}

/// `yrden stdio` by default: each server holds the gate until its first attempt ends or its own connect
/// timeout has passed since the start, whatever `startupWait` says.
@Suite struct EachServersBoundTests {
    static func gateway(connect a: Duration, _ b: Duration, time: TestClock = TestClock()) -> Gateway {
        let specs = [("a", a), ("b", b)].map { id, connect in
            ServerSpec(
                id: id,
                transport: .stdio(command: "x", args: [], env: [:], cwd: nil),
                timeouts: Timeouts(connect: connect)
            )
        }
        return Gateway(
            config: GatewayConfig(gateway: GatewaySettings(startupWait: .seconds(0)), servers: specs),
            logger: Logger(label: "test"),
            connector: UpstreamConnector(time: time),
            startup: .eachServersConnectTimeout
        )
    }

    @Test func aServerWithinItsConnectTimeoutHoldsTheGatePastStartupWait() async {
        let gateway = Self.gateway(connect: .seconds(600), .seconds(600))
        #expect(!gateway.registry.startup.isOpen, "startupWait 0 does not open it: each server's own bound does")
        await gateway.registry.update { $0.links["a"]?.state = .connected(since: .now) }
        #expect(!gateway.registry.startup.isOpen)
        await gateway.registry.update { $0.links["b"]?.state = .connecting(attempt: 2) }
        #expect(gateway.registry.startup.isOpen)
    }

    /// On the test clock, so a loaded machine cannot pass a's bound before the test looks.
    @Test func aServerPastItsOwnConnectTimeoutNoLongerHoldsIt() async {
        let time = TestClock()
        let start = time.now
        let gateway = Self.gateway(connect: .seconds(5), .seconds(600), time: time)
        await gateway.registry.update { $0.links["b"]?.state = .connected(since: .now) }
        #expect(!gateway.registry.startup.isOpen)
        let waiter = Task { await gateway.registry.awaitStartup() }
        #expect(await time.parked(until: start + .seconds(5)), "the wait ends at a's bound, not the latest one")
        time.advance(to: start + .seconds(5))
        await waiter.value
        #expect(gateway.registry.startup.isOpen)
    }
}

/// The merge of every server's lists waits for the gate: the servers starting together are merged once.
@Suite struct DeferredMergeTests {
    static let specs = ["a", "b"].map {
        ServerSpec(id: $0, transport: .stdio(command: "x", args: [], env: [:], cwd: nil))
    }
    static let tools: [JSONObject] = [["name": "x", "inputSchema": ["type": "object"]]]

    static func gateway(startupWait: Duration, time: TestClock = TestClock()) -> Gateway {
        Gateway(
            config: GatewayConfig(gateway: GatewaySettings(startupWait: startupWait), servers: specs),
            logger: Logger(label: "test"),
            connector: UpstreamConnector(time: time)
        )
    }

    @Test func aServerConnectingFirstIsMergedWhenTheLastFirstAttemptEnds() async {
        let gateway = Self.gateway(startupWait: .seconds(600))
        await gateway.registry.update { snapshot in
            snapshot.links["a"]?.state = .connected(since: .now)
            snapshot.links["a"]?.catalog = ServerCatalog(tools: Self.tools)
        }
        #expect(gateway.snapshot.mergePending)
        #expect(gateway.snapshot.catalog.tools.isEmpty)
        #expect(!gateway.registry.startup.isOpen)

        await gateway.registry.update { $0.links["b"]?.state = .connecting(attempt: 2) }
        #expect(!gateway.snapshot.mergePending)
        #expect(gateway.snapshot.catalog.toolRoutes["a__x"] != nil)
        #expect(gateway.registry.startup.isOpen)
    }

    @Test func theDeadlineMergesWhatConnectedBeforeTheGateOpens() async {
        let time = TestClock()
        let start = time.now
        let gateway = Self.gateway(startupWait: .seconds(5), time: time)
        await gateway.registry.update { snapshot in
            snapshot.links["a"]?.state = .connected(since: .now)
            snapshot.links["a"]?.catalog = ServerCatalog(tools: Self.tools)
        }
        #expect(gateway.snapshot.catalog.tools.isEmpty)
        let waiter = Task { await gateway.registry.awaitStartup() }
        #expect(await time.parked(until: start + .seconds(5)))
        time.advance(to: start + .seconds(5))
        await waiter.value
        #expect(gateway.registry.startup.isOpen)
        #expect(gateway.snapshot.catalog.toolRoutes["a__x"] != nil)
    }
}
