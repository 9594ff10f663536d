import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting
import YrdenTransport

@testable import YrdenEngine

/// Which era the gateway speaks to each server: the `server/discover` probe, the fallback to `initialize`,
/// the pins, the cached era, and what a 2026-07-28 server's requests carry.
@Suite struct UpstreamEraTests {
    private static func modernChannels() -> FakeUpstreams {
        var script = FakeUpstreamScript()
        script.modern = true
        return FakeUpstreams(script)
    }

    @Test func aModernServerIsProbedAndEveryRequestCarriesTheEnvelope() async throws {
        let running = RunningGateway([stdioSpec("a")], channels: Self.modernChannels())
        #expect(await running.connected("a"))
        let status = try #require(running.gateway.snapshot.status(of: "a"))
        #expect(status.era == "modern")
        #expect(status.handshake?.protocolVersion == ProtocolVersion.modern)
        #expect(status.handshake?.serverInfo == ["name": "scripted", "version": "1.0"])
        #expect(running["a"].requests(MCPMethod.initialize).isEmpty, "no handshake with a modern server")
        let list = try #require(running["a"].requests(MCPMethod.toolsList).first)
        let meta = try #require(list.params?["_meta"])
        #expect(meta[ModernEnvelope.versionKey] == .string(ProtocolVersion.modern))
        #expect(meta[ModernEnvelope.clientInfoKey]?["name"] == "yrden")
        #expect(meta[ModernEnvelope.capabilitiesKey]?.objectValue != nil)

        let session = try await running.openSession()
        let answer = await running.call("a__echo", ["x": 1], in: session)
        #expect(answer.result?["structuredContent"]?["arguments"] == ["x": 1])
        let call = try #require(await running["a"].firstToolCall("echo"))
        #expect(call.params?["_meta"]?[ModernEnvelope.versionKey] == .string(ProtocolVersion.modern))
        await running.stop()
    }

    @Test func listChangesOfAModernServerArriveOnTheListenStream() async throws {
        let running = RunningGateway([stdioSpec("a")], channels: Self.modernChannels())
        #expect(await running.connected("a"))
        let listen = try #require(await running["a"].firstRequest(MCPMethod.subscriptionsListen))
        #expect(
            listen.params?["notifications"]
                == ["toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true]
        )
        running["a"].change { $0.tools.append(FakeUpstreamScript.tool("added")) }
        let params: JSONValue = ["_meta": .object([ModernEnvelope.subscriptionIDKey: listen.id.json])]
        #expect(running["a"].notify(MCPMethod.toolsListChanged, params: params))
        #expect(await running.until { $0.catalog.tools.count == 2 })
        await running.stop()
    }

    @Test func aHandshakeServerIsProbedThenInitializedAndGetsNoEnvelope() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))
        #expect(running["a"].requests(MCPMethod.serverDiscover).count == 1)
        #expect(running["a"].requests(MCPMethod.initialize).count == 1)
        #expect(running.gateway.snapshot.status(of: "a")?.era == "handshake")
        let list = try #require(running["a"].requests(MCPMethod.toolsList).first)
        #expect(list.params?["_meta"]?[ModernEnvelope.versionKey] == nil)
        #expect(running["a"].requests(MCPMethod.subscriptionsListen).isEmpty)

        // The era is cached: a reconnection goes straight to the handshake.
        #expect(try await running.gateway.lifecycle.restartServer("a"))
        #expect(await running.until { _ in running.channels.opens("a") == 2 })
        #expect(await running.connected("a"))
        #expect(running["a"].requests(MCPMethod.serverDiscover).count == 1)
        #expect(running["a"].requests(MCPMethod.initialize).count == 2)
        await running.stop()
    }

    /// The era is kept from the attempt that found it, even when that attempt failed after the handshake: the
    /// retries go straight to `initialize`.
    @Test func aHandshakeServerWhoseAttemptsFailAfterTheHandshakeIsProbedOnce() async throws {
        let channels = FakeUpstreams()
        channels["a"].handle(MCPMethod.toolsList) { _ in .never }
        let timeouts = Timeouts(request: .milliseconds(100))
        let running = RunningGateway([stdioSpec("a", timeouts: timeouts)], channels: channels)
        #expect(await running.until { _ in running.channels.opens("a") >= 3 })
        #expect(running["a"].requests(MCPMethod.serverDiscover).count == 1)
        #expect(running["a"].requests(MCPMethod.initialize).count >= 2)
        await running.stop()
    }

    @Test func aServerSilentOnTheProbeIsInitializedAfterTheDiscoverTimeout() async throws {
        let channels = FakeUpstreams()
        channels["a"].handle(MCPMethod.serverDiscover) { _ in .never }
        let timeouts = Timeouts(discover: .milliseconds(200))
        let running = RunningGateway([stdioSpec("a", timeouts: timeouts)], channels: channels)
        #expect(await running.connected("a"))
        #expect(running.gateway.snapshot.status(of: "a")?.era == "handshake")
        await running.stop()
    }

    @Test func aServerThatBecameModernRefusesTheCachedHandshakeAndIsProbedAgain() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))
        #expect(running.gateway.snapshot.status(of: "a")?.era == "handshake")
        running["a"].change { $0.modern = true }
        #expect(try await running.gateway.lifecycle.restartServer("a"))
        #expect(
            await running.until {
                $0.links["a"]?.state.isConnected == true && $0.links["a"]?.client != nil
                    && running.channels.opens("a") == 2
            }
        )
        #expect(running.gateway.snapshot.status(of: "a")?.era == "modern")
        await running.stop()
    }

    @Test func pinnedHandshakeIsNeverProbed() async throws {
        let running = RunningGateway([stdioSpec("a", protocolEra: .handshake)])
        #expect(await running.connected("a"))
        #expect(running["a"].requests(MCPMethod.serverDiscover).isEmpty)
        await running.stop()
    }

    @Test func pinnedHandshakeToAModernServerFailsSayingWhatToChange() async throws {
        let running = RunningGateway([stdioSpec("a", protocolEra: .handshake)], channels: Self.modernChannels())
        #expect(await running.until { $0.links["a"]?.state.lastError != nil })
        let error = try #require(running.gateway.snapshot.links["a"]?.state.lastError)
        #expect(error.message.contains("speaks only MCP 2026-07-28"))
        #expect(error.message.contains("\"protocol\""))
        await running.stop()
    }

    @Test func pinnedModernToAHandshakeServerFailsWithoutFallingBack() async throws {
        let running = RunningGateway([stdioSpec("a", protocolEra: .modern)])
        #expect(await running.until { $0.links["a"]?.state.lastError != nil })
        let error = try #require(running.gateway.snapshot.links["a"]?.state.lastError)
        #expect(error.message.contains("pins MCP 2026-07-28"))
        #expect(running["a"].requests(MCPMethod.initialize).isEmpty)
        await running.stop()
    }

    @Test func anInputRequiredResultIsNotPassedToAHandshakeSessionThatCannotBeAsked() async throws {
        let channels = Self.modernChannels()
        channels["a"].handleTool("echo") { _ in
            .result(["resultType": "input_required", "inputRequests": ["q": ["method": "roots/list", "params": [:]]]])
        }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        let session = try await running.openSession()
        let answer = await running.call("a__echo", in: session)
        // Refused for its true reason: the client did not declare what it is asked for.
        #expect(answer.error?.message == "The client did not declare the roots capability")
        await running.stop()
    }

    @Test func followingAModernServersResourceOpensItsListenStreamAnew() async throws {
        var script = FakeUpstreamScript(resources: [FakeUpstreamScript.resource("note://pad")])
        script.modern = true
        script.capabilities["resources"] = ["listChanged": true, "subscribe": true]
        let running = RunningGateway([stdioSpec("a")], channels: FakeUpstreams(script))
        #expect(await running.connected("a"))
        let first = try #require(await running["a"].firstRequest(MCPMethod.subscriptionsListen))
        let session = try await running.openSession()
        let updates = session.openNotificationStream()
        #expect(await running.send(MCPMethod.resourcesSubscribe, ["uri": "note://pad"], in: session).result == [:])
        let second = try #require(
            await running["a"].firstRequest(MCPMethod.subscriptionsListen) { $0.id != first.id }
        )
        #expect(second.params?["notifications"]?["resourceSubscriptions"] == ["note://pad"])
        let ended = await running["a"].firstNotification(MCPMethod.cancelled) {
            $0.params?["requestId"] == first.id.json
        }
        #expect(ended != nil, "the old stream is ended")
        #expect(running["a"].notify(MCPMethod.resourcesUpdated, params: ["uri": "note://pad"]))
        var iterator = updates.makeAsyncIterator()
        let update = await iterator.next()
        #expect(update?.method == MCPMethod.resourcesUpdated)
        await running.stop()
    }
}
