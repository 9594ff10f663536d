import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// Stateless (2026-07-28) requests through the engine: served without a session, upstreams never see the
/// downstream envelope, and results and errors take that era's form.
@Suite struct StatelessRequestTests {
    static let envelope: JSONObject = [
        ModernEnvelope.versionKey: "2026-07-28",
        ModernEnvelope.capabilitiesKey: [:],
        ModernEnvelope.clientInfoKey: ["name": "t", "version": "1"],
    ]

    static func request(_ method: String, _ params: JSONObject = [:], id: JSONRPCID = .int(1)) -> JSONRPCRequest {
        var params = params
        params["_meta"] = .object(envelope)
        return JSONRPCRequest(id: id, method: method, params: .object(params))
    }

    @Test func aCallReachesItsServerWithoutTheEnvelopeAndComesBackMarked() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))
        let response = await running.gateway.respondStateless(
            to: Self.request(MCPMethod.toolsCall, ["name": "a__echo", "arguments": ["x": 1]]),
            related: nil
        )
        let result = try response.outcome.get()
        #expect(result["resultType"] == "complete")
        #expect(result["ttlMs"] == nil, "a call's result is not cacheable")
        #expect(result["_meta"]?[ModernEnvelope.serverInfoKey]?["name"] == "yrden")
        let upstream = try #require(running["a"].requests(MCPMethod.toolsCall).first)
        #expect(upstream.params?["_meta"] == nil, "the downstream envelope stays downstream")
        #expect(running.gateway.sessions.count == 0, "no session is left behind")
        await running.stop()
    }

    @Test func discoverAndListsCarryCacheHints() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))
        for method in [MCPMethod.serverDiscover, MCPMethod.toolsList] {
            let result = try await running.gateway.respondStateless(to: Self.request(method), related: nil).outcome
                .get()
            // The fake announces every list's changes, so the gateway promises its policy's freshness.
            #expect(result["ttlMs"] == .int(CatalogViews.announcedListTTLms) && result["cacheScope"] == "private")
            #expect(result["resultType"] == "complete")
        }
        let discovered = try await running.gateway.respondStateless(
            to: Self.request(MCPMethod.serverDiscover),
            related: nil
        )
        .outcome.get()
        #expect(discovered["supportedVersions"]?.arrayValue?.map(\.stringValue) == ProtocolVersion.served)
        #expect(discovered["capabilities"]?["tools"] != nil)
        await running.stop()
    }

    @Test(arguments: [MCPMethod.ping, MCPMethod.loggingSetLevel, MCPMethod.resourcesSubscribe, MCPMethod.initialize])
    func methodsTheEraDoesNotHaveAre32601(_ method: String) async {
        let running = RunningGateway([])
        let response = await running.gateway.respondStateless(to: Self.request(method), related: nil)
        #expect(response.error?.code == -32601)
        await running.stop()
    }

    @Test func aMissingResourceIs32602() async {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))
        let response = await running.gateway.respondStateless(
            to: Self.request(MCPMethod.resourcesRead, ["uri": "nowhere://x"]),
            related: nil
        )
        #expect(response.error?.code == -32602)
        #expect(response.error?.data?["uri"] == "nowhere://x")
        await running.stop()
    }
}

extension JSONRPCResponse {
    fileprivate var error: JSONRPCError? {
        guard case .failure(let error) = outcome else { return nil }
        return error
    }
}
