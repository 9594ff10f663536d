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

    /// Another replica's session: the same store and server, its own callback address.
    func replica(_ fixture: Fixture, port: Int = 8751) throws -> OAuthSession {
        try fixture.session(fixture.configuration(redirectURI: "http://127.0.0.1:\(port)/oauth/callback"))
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
}
