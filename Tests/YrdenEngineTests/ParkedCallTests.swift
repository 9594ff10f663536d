import Foundation
import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// A 2026-07-28 client in front of a handshake-era upstream that asks during a call: the call is parked
/// behind `input_required`, and only a genuine, live, matching `requestState` resumes it; anything else is
/// -32602 and changes nothing.
@Suite struct ParkedCallTests {
    /// A handshake-era fake whose `echo` asks the client for sampling and returns what it was answered.
    private static func running(toolCall: Duration = .seconds(30)) -> RunningGateway {
        let channels = FakeUpstreams()
        channels["a"].handleTool("echo") { call in
            let answer = await call.upstream.ask(MCPMethod.samplingCreateMessage, params: ["maxTokens": 5])
            switch answer?.outcome {
            case .success(let result)?: return .result(["structuredContent": ["sampled": result]])
            case .failure(let error)?: return .error(error)
            case nil: return .error(.internalError("no answer"))
            }
        }
        return RunningGateway([stdioSpec("a", timeouts: Timeouts(toolCall: toolCall))], channels: channels)
    }

    private static func call(
        _ name: String = "a__echo",
        arguments: JSONValue = ["x": 1],
        id: Int,
        retry: (state: JSONValue, responses: JSONValue)? = nil,
        capabilities: JSONObject = ["sampling": [:]]
    ) -> JSONRPCRequest {
        var params: JSONObject = [
            "name": .string(name), "arguments": arguments,
            "_meta": .object([
                ModernEnvelope.versionKey: .string(ProtocolVersion.modern),
                ModernEnvelope.capabilitiesKey: .object(capabilities),
            ]),
        ]
        if let retry {
            params["requestState"] = retry.state
            params["inputResponses"] = retry.responses
        }
        return JSONRPCRequest(id: .int(id), method: MCPMethod.toolsCall, params: .object(params))
    }

    private static let sampled: JSONValue = ["role": "assistant", "model": "m"]

    /// Starts a call and returns its `input_required` result: the key of its one ask and its token.
    private func park(
        _ running: RunningGateway,
        principal: String? = "Bearer one"
    ) async throws -> (
        key: String, state: JSONValue
    ) {
        let first = await running.gateway.respondStateless(to: Self.call(id: 1), principal: principal, related: nil)
        let result = try first.outcome.get()
        #expect(result["resultType"] == "input_required")
        let asks = try #require(result["inputRequests"]?.objectValue)
        #expect(asks.count == 1)
        let (key, ask) = try #require(asks.first { _ in true })
        #expect(ask["method"] == .string(MCPMethod.samplingCreateMessage))
        #expect(ask["params"]?["maxTokens"] == 5)
        let state = try #require(result["requestState"])
        #expect(state.stringValue?.hasPrefix(RequestStateSeal.prefix) == true)
        return (key, state)
    }

    private func refusal(_ response: JSONRPCResponse) -> JSONRPCError? {
        guard case .failure(let error) = response.outcome else { return nil }
        return error
    }

    @Test func theRetryAnswersTheParkedCallAndGetsItsResult() async throws {
        let running = Self.running()
        #expect(await running.connected("a"))
        let (key, state) = try await park(running)
        let retry = Self.call(id: 2, retry: (state, .object([key: Self.sampled])))
        let done = await running.gateway.respondStateless(to: retry, principal: "Bearer one", related: nil)
        #expect(try done.outcome.get()["structuredContent"]?["sampled"] == Self.sampled)
        #expect(running["a"].requests(MCPMethod.toolsCall).count == 1, "resumed, not called again")
        #expect(running.gateway.bridge.parked.count == 0)
        await running.stop()
    }

    @Test func aForgedOrAlteredTokenIsRefusedAndChangesNothing() async throws {
        let running = Self.running()
        #expect(await running.connected("a"))
        let (key, state) = try await park(running)
        let token = try #require(state.stringValue)
        var altered = Array(token.utf8)
        altered[altered.count - 5] =
            altered[altered.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let forgeries: [JSONValue] = [
            "yrden1.AAAA", .string(String(decoding: altered, as: UTF8.self)), "not-ours", 42,
            .string(
                RequestStateSeal().seal(
                    ParkClaims(
                        park: "p1-1",
                        method: MCPMethod.toolsCall,
                        scope: "gateway",
                        name: "a__echo",
                        arguments: "",
                        principal: "",
                        expires: Int.max
                    )
                )
            ),
        ]
        for (index, forged) in forgeries.enumerated() {
            let retry = Self.call(id: 10 + index, retry: (forged, .object([key: Self.sampled])))
            let answer = await running.gateway.respondStateless(to: retry, principal: "Bearer one", related: nil)
            #expect(refusal(answer)?.code == -32602, "forgery \(index)")
            #expect(refusal(answer)?.data?["reason"] == "invalid_request_state")
        }
        // The genuine token still works: nothing was consumed.
        let retry = Self.call(id: 2, retry: (state, .object([key: Self.sampled])))
        let done = await running.gateway.respondStateless(to: retry, principal: "Bearer one", related: nil)
        #expect(try done.outcome.get()["structuredContent"]?["sampled"] == Self.sampled)
        await running.stop()
    }

    @Test func aReplayedTokenIsRefused() async throws {
        let running = Self.running()
        #expect(await running.connected("a"))
        let (key, state) = try await park(running)
        let retry = Self.call(id: 2, retry: (state, .object([key: Self.sampled])))
        _ = await running.gateway.respondStateless(to: retry, principal: "Bearer one", related: nil)
        let again = await running.gateway.respondStateless(to: retry, principal: "Bearer one", related: nil)
        #expect(refusal(again)?.code == -32602)
        await running.stop()
    }

    @Test func aTokenIsBoundToItsToolArgumentsAndCaller() async throws {
        let running = Self.running()
        #expect(await running.connected("a"))
        let (key, state) = try await park(running)
        let responses: JSONValue = .object([key: Self.sampled])
        let mismatches: [(JSONRPCRequest, String?)] = [
            (Self.call(arguments: ["x": 2], id: 3, retry: (state, responses)), "Bearer one"),
            (Self.call("a__other", id: 4, retry: (state, responses)), "Bearer one"),
            (Self.call(id: 5, retry: (state, responses)), "Bearer two"),
            (Self.call(id: 6, retry: (state, responses)), nil),
        ]
        for (index, (retry, principal)) in mismatches.enumerated() {
            let answer = await running.gateway.respondStateless(to: retry, principal: principal, related: nil)
            #expect(refusal(answer)?.code == -32602, "mismatch \(index)")
        }
        // Arguments in another key order are the same arguments.
        let reordered = Self.call(arguments: ["x": 1], id: 7, retry: (state, responses))
        let done = await running.gateway.respondStateless(to: reordered, principal: "Bearer one", related: nil)
        #expect(try done.outcome.get()["structuredContent"]?["sampled"] == Self.sampled)
        await running.stop()
    }

    /// A profile that keeps the aggregate's names calls the same tool under the same name, yet a token the
    /// aggregate gave is no key to it: the retry must come where the call was made, under that endpoint's
    /// rules.
    @Test func aTokenIsBoundToTheEndpointThatGaveIt() async throws {
        let running = Self.running()
        await running.gateway.registry.setProfiles([ProfileSpec(name: "all")])
        #expect(await running.connected("a"))
        let (key, state) = try await park(running)
        let responses: JSONValue = .object([key: Self.sampled])
        let elsewhere = await running.gateway.respondStateless(
            to: Self.call(id: 3, retry: (state, responses)),
            principal: "Bearer one",
            scope: .profile("all"),
            related: nil
        )
        #expect(refusal(elsewhere)?.code == -32602)
        #expect(refusal(elsewhere)?.data?["reason"] == "invalid_request_state")
        let retry = Self.call(id: 4, retry: (state, responses))
        let done = await running.gateway.respondStateless(to: retry, principal: "Bearer one", related: nil)
        #expect(try done.outcome.get()["structuredContent"]?["sampled"] == Self.sampled)
        await running.stop()
    }

    @Test func aRetryThatNeverComesCancelsTheUpstreamCallWhenTheTokenExpires() async throws {
        let running = Self.running(toolCall: .seconds(1))
        #expect(await running.connected("a"))
        let (key, state) = try await park(running)
        let cancelled = await running["a"].firstNotification(MCPMethod.cancelled, within: .seconds(5))
        #expect(cancelled != nil, "the upstream is told")
        try await Task.sleep(for: .milliseconds(300))
        #expect(running.gateway.bridge.parked.count == 0)
        let late = Self.call(id: 2, retry: (state, .object([key: Self.sampled])))
        let answer = await running.gateway.respondStateless(to: late, principal: "Bearer one", related: nil)
        #expect(refusal(answer)?.code == -32602)
        await running.stop()
    }

    @Test func aClientWithoutTheCapabilityIsNotAsked() async throws {
        let running = Self.running()
        #expect(await running.connected("a"))
        let first = await running.gateway.respondStateless(
            to: Self.call(id: 1, capabilities: [:]),
            principal: nil,
            related: nil
        )
        #expect(refusal(first)?.message == "The client did not declare the sampling capability")
        await running.stop()
    }

    @Test func digestsIgnoreKeyOrder() {
        let one: JSONValue = ["a": 1, "b": ["c": true, "d": [1, 2]]]
        let other: JSONValue = ["b": ["d": [1, 2], "c": true], "a": 1]
        #expect(RequestStateSeal.digest(one) == RequestStateSeal.digest(other))
        #expect(RequestStateSeal.digest(one) != RequestStateSeal.digest(["a": 2, "b": ["c": true, "d": [1, 2]]]))
    }

    @Test func aURLElicitationTheServerRequiresIsAskedAndTheRetryMakesTheCallAgain() async throws {
        let channels = FakeUpstreams()
        let calls = Recording<Int>()
        channels["a"].handleTool("echo") { _ in
            calls.append(1)
            guard calls.elements.count > 2 else {
                let required: JSONValue = [
                    "elicitations": [
                        ["mode": "url", "elicitationId": "e1", "url": "https://example.com/auth", "message": "sign in"]
                    ]
                ]
                return .error(JSONRPCError(code: -32042, message: "URL elicitation required", data: required))
            }
            return .result(["structuredContent": ["ok": true]])
        }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        // Without URL elicitation declared, the error is the client's to read, as it came.
        let plain = await running.gateway.respondStateless(to: Self.call(id: 3, capabilities: [:]), related: nil)
        #expect(refusal(plain)?.code == -32042)
        let capabilities: JSONObject = ["elicitation": ["url": [:]]]
        let first = await running.gateway.respondStateless(
            to: Self.call(id: 1, capabilities: capabilities),
            related: nil
        )
        let result = try first.outcome.get()
        #expect(result["resultType"] == "input_required")
        let ask = try #require(result["inputRequests"]?["url-1"])
        #expect(ask["params"]?["url"] == "https://example.com/auth")
        #expect(ask["params"]?["elicitationId"] == nil, "2026-07-28 has no elicitation id")
        let state = try #require(result["requestState"])
        let retry = Self.call(id: 2, retry: (state, ["url-1": ["action": "accept"]]), capabilities: capabilities)
        let done = await running.gateway.respondStateless(to: retry, related: nil)
        #expect(try done.outcome.get()["structuredContent"]?["ok"] == true)
        #expect(calls.elements.count == 3, "made again")
        await running.stop()
    }
}
