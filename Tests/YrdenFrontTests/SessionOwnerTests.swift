import Testing
import YrdenLineIO
import YrdenProtocol

@testable import YrdenEngine
@testable import YrdenFront

/// A session serves only the caller that opened it: another client token's holder who learns its id (a log, a
/// proxy) cannot use it, end it or read its stream.
@Suite struct SessionOwnerTests {
    static let alice = "session-owner-alice-token-1"
    static let bob = "session-owner-bob-token-2"

    @Test func anotherCallersRequestOnASessionIsRefused() async throws {
        let front = try InProcessFront([
            "gateway": ["clientTokens": [.string(Self.alice), .string(Self.bob)]],
            "mcpServers": ["a": InProcessFront.entry],
        ])
        let asAlice = [("Authorization", "Bearer \(Self.alice)")]
        let asBob = [("Authorization", "Bearer \(Self.bob)")]
        let session = try #require(await front.openSession(headers: asAlice))
        let owner = try #require(front.gateway.sessions.session(session))
        #expect(owner.caller.user == "token:" + Caller.tokenName(Self.alice))
        let ping = InProcessFront.request(1, MCPMethod.ping)
        let theirs = try #require(await front.post(ping, session: session, headers: asBob))
        #expect(theirs.status == 403)
        #expect(!theirs.text.contains(Self.alice) && !theirs.text.contains(Self.bob))
        let end = await front.send("DELETE", "/mcp", headers: asBob + [("Mcp-Session-Id", session)])
        #expect(end?.status == 403)
        let own = try #require(await front.post(ping, session: session, headers: asAlice))
        #expect(own.status == 200, "the session is still there for its owner")
        await front.stop()
    }

    @Test func aLegacyStreamTakesPostsOnlyFromItsOpener() throws {
        let channels = LegacySSEChannels(limit: 4)
        let alice = Caller.clientToken(Self.alice)
        let (id, messages) = try #require(channels.openChannel(base: "", caller: alice))
        #expect(channels.deliver([], to: id, base: "", caller: Caller.clientToken(Self.bob)) == .unknown)
        #expect(channels.deliver([], to: id, base: "", caller: .anonymous) == .unknown)
        #expect(channels.deliver([], to: id, base: "", caller: alice) == .accepted)
        withExtendedLifetime(messages) {}
    }
}

/// The bearer token of an `Authorization` header as the OAuth door reads it (bytes, not characters).
@Suite struct ResourceGuardBearerTests {
    @Test func theTokenIsWhatFollowsTheSchemeInAnyCase() {
        #expect(ResourceGuard.bearerToken(in: "Bearer abc.def") == "abc.def")
        #expect(ResourceGuard.bearerToken(in: "  bEaReR   abc  ") == "abc")
        #expect(ResourceGuard.bearerToken(in: "Basic abc") == nil)
        #expect(ResourceGuard.bearerToken(in: "Bearer ") == nil)
        #expect(ResourceGuard.bearerToken(in: "Bearerabc") == nil)
        #expect(ResourceGuard.bearerToken(in: "") == nil)
    }
}
