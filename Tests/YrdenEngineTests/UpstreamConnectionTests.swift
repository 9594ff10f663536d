import Logging
import Synchronization
import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting
import YrdenTransport

@testable import YrdenEngine

/// What the engine publishes about a server's connections: its state, its last handshake and era, its last
/// lists, and its last failure with when it happened.
@Suite struct UpstreamConnectionTests {
    @Test func aConnectedServerPublishesItsHandshakeEraAndLists() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        let status = try #require(running.gateway.snapshot.status(of: "a"))
        #expect(status.handshake?.protocolVersion == "2025-06-18")
        #expect(status.lastHandshake?.serverInfo == ["name": "scripted", "version": "1.0"])
        #expect(status.era == "handshake")
        #expect(status.counts.tools == 1)
        #expect(status.lastFailure == nil)
        await running.stop()
        #expect(running.gateway.snapshot.links["a"]?.state == .stopped)
    }

    @Test func aFailureIsKeptWithItsTimeWhileTheNextAttemptRunsAndClearedOnceConnected() async throws {
        let channels = FakeUpstreams()
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        channels.change { $0.answers = false }
        let before = WallClock.now()
        channels.crash("a")
        #expect(await running.until { if case .connecting(2) = $0.links["a"]?.state { true } else { false } })
        let failure = try #require(running.gateway.snapshot.links["a"]?.lastFailure)
        #expect(failure.error.kind == .process)
        #expect(failure.at >= before - 1 && failure.at <= WallClock.now() + 1)
        let status = try #require(running.gateway.snapshot.status(of: "a"))
        #expect(status.lastHandshake?.protocolVersion == "2025-06-18", "the handshake is kept while down")
        #expect(status.handshake == nil)
        channels.change { $0.answers = true }
        channels.crash("a")
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        #expect(running.gateway.snapshot.links["a"]?.lastFailure == nil)
        await running.stop()
    }

    @Test func aDisconnectedServerKeepsItsLastListsAndHandshake() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        #expect(try await running.gateway.lifecycle.disconnectServer("a"))
        let link = try #require(running.gateway.snapshot.links["a"])
        #expect(link.state == .disconnected)
        #expect(link.client == nil)
        #expect(link.catalog?.tools.count == 1)
        #expect(link.lastHandshake?.protocolVersion == "2025-06-18")
        #expect(running.gateway.snapshot.catalog.tools.isEmpty, "a disconnected server's tools leave /mcp")
        try await running.gateway.lifecycle.connectServer("a")
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        #expect(running.channels.opens("a") == 2)
        await running.stop()
    }

    @Test func aRestartOpensAFreshConnection() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        #expect(try await running.gateway.lifecycle.restartServer("a"))
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        #expect(running.channels.opens("a") == 2)
        await running.stop()
    }

    @Test func aRemovedServerIsForgotten() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        #expect(try await running.gateway.lifecycle.removeServer("a"))
        #expect(running.gateway.snapshot.status(of: "a") == nil)
        try await running.gateway.lifecycle.addServer(stdioSpec("a", disabled: true))
        let status = try #require(running.gateway.snapshot.status(of: "a"))
        #expect(status.lastHandshake == nil && status.lastFailure == nil)
        await running.stop()
    }

    @Test func anUnusableConfigFailsWithKindConfigAndIsNotRetried() async throws {
        // As the config holds a reference it cannot resolve: the text as written, in place of a value.
        let spec = ServerSpec(
            id: "a",
            transport: .stdio(command: "scripted", args: [], env: ["API_KEY": "${input:api-key}"], cwd: nil),
            unresolved: [
                UnresolvedReference(
                    path: "mcpServers.a.env.API_KEY",
                    message: "${input:api-key} is a VS Code input prompt",
                    fix: "set it"
                )
            ]
        )
        let running = RunningGateway([spec])
        #expect(await running.until { $0.links["a"]?.state.lastError != nil })
        guard case .failed(let error, _, nil)? = running.gateway.snapshot.links["a"]?.state else {
            Issue.record(
                "expected failed without a retry, got \(String(describing: running.gateway.snapshot.links["a"]?.state))"
            )
            return
        }
        #expect(error.kind == .config)
        #expect(error.message.contains("${input:api-key} is a VS Code input prompt"), "the reference is named")
        #expect(running.channels.opens("a") == 0)
        await running.stop()
    }

    @Test func anOAuthServerWithoutCredentialsFailsWithKindAuth() async throws {
        let spec = ServerSpec(
            id: "remote",
            transport: .http(
                url: "https://example.com/mcp",
                headers: [:],
                auth: .oauth(OAuthSpec(scopes: [])),
                fallbackToSSE: false
            ),
            reconnect: .never
        )
        let running = RunningGateway([spec])
        #expect(await running.until { $0.links["remote"]?.state.lastError != nil })
        #expect(running.gateway.snapshot.links["remote"]?.state.lastError?.kind == .auth)
        #expect(running.channels.opens("remote") == 0)
        await running.stop()
    }

    @Test func stoppingTheGatewayWaitsForEveryConnectionToClose() async throws {
        let channels = FakeUpstreams(FakeUpstreamScript(closeDelay: .milliseconds(300)))
        let running = RunningGateway([stdioSpec("a"), stdioSpec("b")], channels: channels)
        #expect(await running.until { $0.links.values.allSatisfy(\.state.isConnected) })
        let started = ContinuousClock.now
        await running.stop()
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(running.gateway.snapshot.links.values.allSatisfy { $0.state == .stopped })
    }
}
