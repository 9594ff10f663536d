import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// What an upstream asks the gateway: `ping` is answered; sampling, elicitation and roots go to the client
/// whose call is in flight, if it declared them, and are refused honestly otherwise, never left unanswered.
@Suite struct ServerRequestTests {
    private static let sampling: JSONValue = ["messages": [], "maxTokens": 10]

    @Test func aPingIsAnsweredAndARequestOutsideAnyCallIsRefused() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))

        let pong = try #require(await running["a"].ask(MCPMethod.ping))
        #expect(try pong.outcome.get() == [:])

        let sampling = try #require(await running["a"].ask(MCPMethod.samplingCreateMessage, params: Self.sampling))
        guard case .failure(let error) = sampling.outcome else {
            Issue.record("expected sampling to be refused, got \(sampling)")
            return
        }
        #expect(error.code == -32603)
        #expect(error.message.contains("outside a call"))
        #expect(running.gateway.snapshot.links["a"]?.state.isConnected == true, "the connection lives on")
        await running.stop()
    }

    /// A tool that asks the client for sampling mid-call, and returns what it was answered.
    private static func askingChannels() -> FakeUpstreams {
        let channels = FakeUpstreams()
        channels["a"].handleTool("echo") { call in
            let answer = await call.upstream.ask(MCPMethod.samplingCreateMessage, params: sampling)
            switch answer?.outcome {
            case .success(let result)?: return .result(["structuredContent": result])
            case .failure(let error)?: return .error(error)
            case nil: return .error(.internalError("no answer"))
            }
        }
        return channels
    }

    @Test func samplingDuringACallReachesThatClientAndItsAnswerGoesBack() async throws {
        let running = RunningGateway([stdioSpec("a")], channels: Self.askingChannels())
        #expect(await running.connected("a"))
        let session = try await running.openSession(capabilities: ["sampling": [:]])
        let relayed = Recording<JSONRPCMessage>()
        async let answer = running.call("a__echo", in: session, related: { relayed.append($0) })
        let asked = await relayed.first(within: .seconds(10)) { $0.method == MCPMethod.samplingCreateMessage }
        guard case .request(let request)? = asked else {
            Issue.record("the client was not asked")
            return
        }
        #expect(request.id.description.contains("yrden-"), "the gateway's own id, not the upstream's")
        let reply = JSONRPCResponse(id: request.id, result: ["role": "assistant", "model": "m"])
        guard case .accepted = running.gateway.receive(.success(.response(reply)), rawID: request.id, session: session)
        else {
            Issue.record("the client's answer was not taken")
            return
        }
        #expect(await answer.result?["structuredContent"]?["model"] == "m")
        await running.stop()
    }

    @Test func aClientThatDidNotDeclareSamplingIsNotAsked() async throws {
        let running = RunningGateway([stdioSpec("a")], channels: Self.askingChannels())
        #expect(await running.connected("a"))
        let session = try await running.openSession(capabilities: ["roots": [:]])
        let relayed = Recording<JSONRPCMessage>()
        let answer = await running.call("a__echo", in: session, related: { relayed.append($0) })
        #expect(answer.error?.message == "The client did not declare the sampling capability")
        #expect(relayed.elements.isEmpty)
        await running.stop()
    }

    /// A client that declared nothing has no stream for its calls; what the upstream asks during one is
    /// refused for that reason, not as if it came outside any call.
    @Test func aClientThatDeclaredNothingIsToldItDidNotDeclareTheCapability() async throws {
        let running = RunningGateway([stdioSpec("a")], channels: Self.askingChannels())
        #expect(await running.connected("a"))
        let session = try await running.openSession()
        let answer = await running.call("a__echo", in: session)
        #expect(answer.error?.message == "The client did not declare the sampling capability")
        await running.stop()
    }

    /// The gateway's own refusal is logged as the gateway's remark about the server, never as its stderr.
    @Test func aRefusalIsTheGatewaysEntryNotTheServersStderr() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))
        _ = await running["a"].ask(MCPMethod.samplingCreateMessage, params: Self.sampling)
        let entries = running.gateway.registry.logRing("a")?.recent() ?? []
        let refusals = entries.filter { $0.message.contains("refused \(MCPMethod.samplingCreateMessage)") }
        #expect(refusals.map(\.event) == ["gateway"])
        #expect(!entries.contains { $0.event == "stderr" })
        await running.stop()
    }

    @Test func whileCallsOfTwoClientsAreInFlightTheAskerCannotBeToldAndIsRefused() async throws {
        let channels = Self.askingChannels()
        channels["a"].handleTool("hold") { _ in .never }
        channels["a"].change { $0.tools.append(FakeUpstreamScript.tool("hold")) }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        let holder = try await running.openSession(capabilities: ["sampling": [:]])
        let asker = try await running.openSession(capabilities: ["sampling": [:]])
        let held = Task { await running.call("a__hold", in: holder, related: { _ in }) }
        #expect(await running["a"].firstToolCall("hold") != nil)
        let answer = await running.call("a__echo", id: .int(2), in: asker, related: { _ in })
        #expect(answer.error?.code == -32603)
        #expect(answer.error?.message.contains("several clients") == true)
        held.cancel()
        await running.stop()
    }

    @Test func aURLElicitationsCompletionReachesTheClientItWasRelayedTo() async throws {
        let channels = FakeUpstreams()
        channels["a"].handleTool("echo") { call in
            let params: JSONValue = [
                "mode": "url", "elicitationId": "e9", "url": "https://example.com", "message": "go",
            ]
            _ = await call.upstream.ask(MCPMethod.elicitationCreate, params: params)
            return .result(["structuredContent": [:]])
        }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        let asked = try await running.openSession(capabilities: ["elicitation": ["url": [:]]])
        let other = try await running.openSession()
        let askedStream = asked.openNotificationStream()
        let otherStream = other.openNotificationStream()
        let relayed = Recording<JSONRPCMessage>()
        async let answer = running.call("a__echo", in: asked, related: { relayed.append($0) })
        guard case .request(let request)? = await relayed.first(where: { $0.method == MCPMethod.elicitationCreate })
        else {
            Issue.record("the client was not asked")
            return
        }
        #expect(request.params?["elicitationId"] == "e9")
        let reply = JSONRPCResponse(id: request.id, result: ["action": "accept"])
        _ = running.gateway.receive(.success(.response(reply)), rawID: request.id, session: asked)
        _ = await answer
        #expect(running["a"].notify(MCPMethod.elicitationComplete, params: ["elicitationId": "e9"]))
        var iterator = askedStream.makeAsyncIterator()
        #expect((await iterator.next())?.method == MCPMethod.elicitationComplete)
        other.deliver(.notification(JSONRPCNotification(method: "test/marker")))
        var otherIterator = otherStream.makeAsyncIterator()
        #expect((await otherIterator.next())?.method == "test/marker", "the other client heard nothing")
        await running.stop()
    }

    @Test func theHandshakeAnnouncesTheClientAndIsAcknowledged() async throws {
        let channels = FakeUpstreams()
        channels["a"].change { $0.instructions = "Use a__echo to echo." }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        let initialize = try #require(running["a"].requests(MCPMethod.initialize).first)
        #expect(initialize.params?["protocolVersion"] != nil)
        #expect(initialize.params?["clientInfo"]?["name"] != nil)
        #expect(await running["a"].firstNotification(MCPMethod.initialized) != nil)

        let request = JSONRPCRequest(
            id: .int(0),
            method: MCPMethod.initialize,
            params: ["protocolVersion": "2025-06-18"]
        )
        let (_, response) = try await running.gateway.initialize(request)
        let instructions = try response.outcome.get()["instructions"]?.stringValue ?? ""
        #expect(instructions.contains("## a\nUse a__echo to echo."), "the upstream's instructions are merged")
        await running.stop()
    }
}

/// A client's `notifications/roots/list_changed` reaches the upstreams that can ask it for roots again.
@Suite struct RootsChangedTests {
    @Test func handshakeUpstreamsAreToldAndModernOnesAreNot() async throws {
        let channels = FakeUpstreams()
        channels["m"].change { $0.modern = true }
        let running = RunningGateway([stdioSpec("a"), stdioSpec("m")], channels: channels)
        #expect(await running.connected("a"))
        #expect(await running.connected("m"))
        let session = try await running.openSession(capabilities: ["roots": ["listChanged": true]])
        running.gateway.handle(JSONRPCNotification(method: MCPMethod.rootsListChanged), session: session)
        #expect(await channels["a"].firstNotification(MCPMethod.rootsListChanged) != nil)
        #expect(channels["m"].notifications(MCPMethod.rootsListChanged).isEmpty)
        let declared = channels["a"].requests(MCPMethod.initialize).first?.params?["capabilities"]?["roots"]
        #expect(declared?["listChanged"] == true)
        await running.stop()
    }
}
