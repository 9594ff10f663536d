import Synchronization
import Testing
import YrdenProtocol
import YrdenStorage

@testable import YrdenOAuth

/// Replicas sharing one server's tokens: sessions over one secret store, as gateways sharing a store are.
@Suite struct SharedTokensTests {
    func refreshRequests(_ fixture: Fixture) -> [[String: String]] {
        fixture.network.requests(to: Fixture.tokenURL).map(formFields).filter { $0["grant_type"] == "refresh_token" }
    }

    /// Another replica's session: the same store and server, its own callback address and router.
    func replica(
        _ fixture: Fixture,
        port: Int = 8751,
        router: OAuthCallbackRouter = OAuthCallbackRouter()
    ) throws -> OAuthSession {
        try OAuthSession(
            configuration: fixture.configuration(redirectURI: "http://127.0.0.1:\(port)/oauth/callback"),
            http: fixture.network.http,
            secrets: fixture.secrets,
            router: router,
            clock: fixture.clock.oauthClock,
            logger: quietLogger
        )
    }

    @Test func aRefreshUsesTheClientTheTokensWereIssuedToAfterAnotherReplicaRegistered() async throws {
        let fixture = Fixture()
        let first = try fixture.session()
        try await fixture.signIn(first)
        // Another replica starts a sign-in of its own: it registers client-2, and its registration is the one
        // stored now.
        _ = try await replica(fixture).beginSignIn()
        #expect(fixture.registrations.count == 2)
        fixture.clock.advance(3600)
        #expect(try await first.accessToken() == "access-2")
        #expect(refreshRequests(fixture).map { $0["client_id"] } == ["client-1"])
    }

    @Test func aSignInThroughOneReplicaEndsTheWaitForOneOnAnother() async throws {
        let fixture = Fixture()
        let router = OAuthCallbackRouter()
        let waiting = try replica(fixture, router: router)
        #expect(await waiting.prepare() == .needsReauth(reason: "not signed in yet"))
        _ = try await waiting.beginSignIn()
        let signedIn = try fixture.session()
        try await fixture.signIn(signedIn)
        await waiting.storedTokensChanged()
        #expect(await waiting.progress == .complete)
        #expect(try await waiting.accessToken() == "access-1")
        // Its own pending sign-in was ended: its `state` no longer answers.
        #expect(router.pendingServerIDs.isEmpty)
    }

    @Test func aSignOutThroughOneReplicaSignsTheOthersOut() async throws {
        let fixture = Fixture()
        let first = try fixture.session()
        try await fixture.signIn(first)
        let second = try replica(fixture)
        #expect(await second.prepare() == .complete)
        try await first.clearTokens()
        await second.storedTokensChanged()
        #expect(await second.progress == .needsReauth(reason: "signed out through another replica"))
        let error = await #expect(throws: OAuthError.self) { try await second.accessToken() }
        #expect(error?.kind == .needsSignIn)
    }

    @Test func aRefreshThroughOneReplicaIsTakenByTheOthers() async throws {
        let fixture = Fixture()
        let first = try fixture.session()
        try await fixture.signIn(first)
        let second = try replica(fixture)
        #expect(await second.prepare() == .complete)
        fixture.clock.advance(3600)
        #expect(try await first.accessToken() == "access-2")
        await second.storedTokensChanged()
        #expect(try await second.accessToken() == "access-2")
        #expect(refreshRequests(fixture).count == 1)
    }

    @Test func aWiderSignInUnderWayGoesOnWhenAnotherReplicaRefreshes() async throws {
        let fixture = Fixture()
        let first = try fixture.session()
        try await fixture.signIn(first)
        let router = OAuthCallbackRouter()
        let second = try replica(fixture, router: router)
        #expect(await second.prepare() == .complete)
        _ = try await second.beginSignIn()
        fixture.clock.advance(3600)
        _ = try await first.accessToken()
        await second.storedTokensChanged()
        guard case .waitingForUser = await second.progress else {
            Issue.record("the sign-in under way was ended: \(await second.progress)")
            return
        }
        #expect(router.pendingServerIDs == ["tasks"])
    }
}
