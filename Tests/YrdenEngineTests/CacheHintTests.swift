import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// What the gateway's 2026-07-28 answers promise of their freshness: never more than a server behind them did.
@Suite struct CacheHintTests {
    private static func list(
        _ running: RunningGateway,
        _ method: String = MCPMethod.toolsList
    ) async throws -> JSONValue {
        try await running.gateway.respondStateless(to: StatelessRequestTests.request(method), related: nil).outcome
            .get()
    }

    private static func modern(ttlMs: Int, public isPublic: Bool) -> FakeUpstreamScript {
        var script = FakeUpstreamScript()
        script.modern = true
        script.listCacheHint = CacheHint(ttlMs: ttlMs, isPublic: isPublic)
        return script
    }

    @Test func aModernServersHintIsPassedOnForItsList() async throws {
        let running = RunningGateway(
            [stdioSpec("a")],
            channels: FakeUpstreams(Self.modern(ttlMs: 60_000, public: true))
        )
        #expect(await running.connected("a"))
        let tools = try await Self.list(running)
        #expect(tools["ttlMs"] == 60_000 && tools["cacheScope"] == "public")
        await running.stop()
    }

    @Test func theMergedListPromisesTheShortestAndPublicOnlyWhenAllAre() async throws {
        let channels = FakeUpstreams(Self.modern(ttlMs: 60_000, public: true))
        channels["b"].change { $0 = Self.modern(ttlMs: 5_000, public: false) }
        let running = RunningGateway([stdioSpec("a"), stdioSpec("b")], channels: channels)
        #expect(await running.connected("a"))
        #expect(await running.connected("b"))
        let tools = try await Self.list(running)
        #expect(tools["ttlMs"] == 5_000 && tools["cacheScope"] == "private")
        await running.stop()
    }

    @Test func aHandshakeServerPromisesWhatItsAnnouncementsAllow() async throws {
        let channels = FakeUpstreams(Self.modern(ttlMs: 600_000, public: true))
        channels["quiet"].change { script in
            script = FakeUpstreamScript()
            script.capabilities["prompts"] = [:]
        }
        channels["loud"].change { $0 = FakeUpstreamScript() }
        let running = RunningGateway([stdioSpec("a"), stdioSpec("loud"), stdioSpec("quiet")], channels: channels)
        for id in ["a", "loud", "quiet"] { #expect(await running.connected(id)) }
        let tools = try await Self.list(running)
        #expect(tools["ttlMs"] == .int(CatalogViews.announcedListTTLms) && tools["cacheScope"] == "private")
        let prompts = try await Self.list(running, MCPMethod.promptsList)
        #expect(prompts["ttlMs"] == 0, "a server that announces no prompt changes makes the prompt list stale at once")
        await running.stop()
    }

    @Test func hintsAreReadAsAClientMust() {
        #expect(CacheHint(result: ["ttlMs": -5, "cacheScope": "public"]) == CacheHint(ttlMs: 0, isPublic: true))
        #expect(CacheHint(result: ["ttlMs": 1.9, "cacheScope": "shared"]) == CacheHint(ttlMs: 1, isPublic: false))
        #expect(CacheHint(result: ["cacheScope": "public"]) == nil)
        #expect(CacheHint.merged([]) == .none)
    }
}
