import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// A 2026-07-28 upstream's `input_required`: turned into requests to a handshake-era client and retried
/// with its answers, passed through to a 2026-07-28 client, and never looped for ever.
@Suite struct InputRequiredBridgeTests {
    private static let sampling: JSONValue = ["method": "sampling/createMessage", "params": ["maxTokens": 5]]

    /// A modern fake whose `echo` asks `ask` until the call comes back with answers, then returns what the
    /// retry carried.
    private static func channels(asking ask: JSONValue = sampling) -> FakeUpstreams {
        var script = FakeUpstreamScript()
        script.modern = true
        let channels = FakeUpstreams(script)
        channels["a"].handleTool("echo") { call in
            guard let responses = call.params?["inputResponses"] else {
                return .result(["resultType": "input_required", "inputRequests": ["q": ask], "requestState": "s1"])
            }
            return .result([
                "resultType": "complete",
                "structuredContent": ["responses": responses, "state": call.params?["requestState"] ?? .null],
            ])
        }
        return channels
    }

    @Test func aHandshakeClientIsAskedAndTheRetryCarriesItsAnswerAndTheState() async throws {
        let running = RunningGateway([stdioSpec("a")], channels: Self.channels())
        #expect(await running.connected("a"))
        let session = try await running.openSession(capabilities: ["sampling": [:]])
        let relayed = Recording<JSONRPCMessage>()
        async let answer = running.call("a__echo", in: session, related: { relayed.append($0) })
        guard case .request(let asked)? = await relayed.first(where: { $0.method == MCPMethod.samplingCreateMessage })
        else {
            Issue.record("the client was not asked")
            return
        }
        #expect(asked.params?["maxTokens"] == 5)
        let reply = JSONRPCResponse(id: asked.id, result: ["role": "assistant", "model": "m"])
        _ = running.gateway.receive(.success(.response(reply)), rawID: asked.id, session: session)
        let result = try #require(await answer.result)
        #expect(result["structuredContent"]?["responses"] == ["q": ["role": "assistant", "model": "m"]])
        #expect(result["structuredContent"]?["state"] == "s1", "requestState goes back as it came")
        let calls = running["a"].requests(MCPMethod.toolsCall)
        #expect(calls.count == 2 && calls[0].id != calls[1].id, "the retry is a new request")
        #expect(calls[0].params?["_meta"]?[ModernEnvelope.capabilitiesKey]?["sampling"] != nil)
        await running.stop()
    }

    @Test func aURLElicitationGetsAnIDForTheHandshakeClient() async throws {
        let ask: JSONValue = [
            "method": "elicitation/create", "params": ["mode": "url", "url": "https://example.com/x", "message": "go"],
        ]
        let running = RunningGateway([stdioSpec("a")], channels: Self.channels(asking: ask))
        #expect(await running.connected("a"))
        let session = try await running.openSession(capabilities: ["elicitation": ["url": [:]]])
        let relayed = Recording<JSONRPCMessage>()
        async let answer = running.call("a__echo", in: session, related: { relayed.append($0) })
        guard case .request(let asked)? = await relayed.first(where: { $0.method == MCPMethod.elicitationCreate })
        else {
            Issue.record("the client was not asked")
            return
        }
        #expect(asked.params?["elicitationId"]?.stringValue?.isEmpty == false)
        _ = running.gateway.receive(
            .success(.response(JSONRPCResponse(id: asked.id, result: ["action": "accept"]))),
            rawID: asked.id,
            session: session
        )
        #expect(await answer.result?["structuredContent"]?["responses"]?["q"] == ["action": "accept"])
        await running.stop()
    }

    @Test func endlessRoundsEndTheCall() async throws {
        var script = FakeUpstreamScript()
        script.modern = true
        let channels = FakeUpstreams(script)
        channels["a"].handleTool("echo") { _ in .result(["resultType": "input_required", "requestState": "again"]) }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        let session = try await running.openSession(capabilities: ["sampling": [:]])
        let answer = await running.call("a__echo", in: session, related: { _ in })
        #expect(answer.error?.message.contains("more than \(InputRequiredBridge.maxRounds) times") == true)
        #expect(running["a"].requests(MCPMethod.toolsCall).count == InputRequiredBridge.maxRounds + 1)
        await running.stop()
    }

    @Test func aModernClientGetsInputRequiredAsItCameAndTheUpstreamSeesItsCapabilities() async throws {
        let running = RunningGateway([stdioSpec("a")], channels: Self.channels())
        #expect(await running.connected("a"))
        let request = JSONRPCRequest(
            id: .int(7),
            method: MCPMethod.toolsCall,
            params: [
                "name": "a__echo",
                "_meta": .object([
                    ModernEnvelope.versionKey: .string(ProtocolVersion.modern),
                    ModernEnvelope.capabilitiesKey: ["sampling": [:]],
                ]),
            ]
        )
        let response = await running.gateway.respondStateless(to: request, related: nil)
        let result = try response.outcome.get()
        #expect(result["resultType"] == "input_required")
        #expect(result["requestState"] == "s1")
        let sent = try #require(running["a"].requests(MCPMethod.toolsCall).first)
        #expect(sent.params?["_meta"]?[ModernEnvelope.capabilitiesKey]?["sampling"] == [:])
        await running.stop()
    }
}
