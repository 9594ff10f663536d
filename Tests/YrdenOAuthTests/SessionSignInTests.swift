import Synchronization
import Testing
import YrdenProtocol
import YrdenStorage

@testable import YrdenOAuth

@Suite struct SessionSignInTests {
    /// Polls a lasting condition (once true it stays true) for at most 10 s of real time.
    private static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    @Test func signInDiscoversRegistersAndExchangesTheCode() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        #expect(await session.hasTokens == false)
        let url = try await session.beginSignIn()

        // The flow was registered before the URL came back.
        #expect(fixture.router.pendingServerIDs == ["tasks"])
        let query = queryParameters(url)
        #expect(url.hasPrefix("https://auth.example.com/authorize?"))
        #expect(query["client_id"] == "client-1")
        #expect(query["redirect_uri"] == Fixture.redirectURI)
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["resource"] == Fixture.serverURL)
        #expect(query["scope"] == "tasks:read tasks:write")
        #expect(query["state"]?.count == 43)
        guard case .waitingForUser(let shownURL, let expiresAt) = await session.progress else {
            Issue.record("progress is not waitingForUser")
            return
        }
        #expect(shownURL == url)
        #expect(expiresAt == fixture.clock.now + 300)

        let registrationRequest = try #require(fixture.network.requests(to: Fixture.registerURL).first)
        let registration = try #require(jsonBody(registrationRequest))
        #expect(registration["redirect_uris"] == [.string(Fixture.redirectURI)])
        #expect(registration["grant_types"] == ["authorization_code", "refresh_token"])
        #expect(registration["token_endpoint_auth_method"] == "none")
        #expect(registration["application_type"] == "native")

        #expect(await fixture.returnFromBrowser(url) == .signedIn(serverID: "tasks"))
        #expect(try await session.accessToken() == "access-1")
        #expect(await session.progress == .complete)
        #expect(
            fixture.progress.statuses == [
                "discovering", "registering", "waitingForUser", "exchangingCode", "complete",
            ]
        )

        let exchange = formFields(try #require(fixture.network.requests(to: Fixture.tokenURL).last))
        #expect(exchange["grant_type"] == "authorization_code")
        #expect(exchange["code"] == "good-code")
        #expect(exchange["redirect_uri"] == Fixture.redirectURI)
        #expect(exchange["resource"] == Fixture.serverURL)
        #expect(exchange["client_id"] == "client-1")
        // The verifier sent is the one whose S256 hash the authorization URL carried.
        #expect(PKCE.challenge(for: try #require(exchange["code_verifier"])) == query["code_challenge"])
    }

    @Test func theChallengeGuidesDiscoveryAndScope() async throws {
        let fixture = Fixture()
        fixture.network.json(
            "GET",
            "https://mcp.example.com/prm",
            ["resource": .string(Fixture.serverURL), "authorization_servers": [.string(Fixture.issuer)]]
        )
        let session = try fixture.session(fixture.configuration(scopes: ["profile"]))
        let retry = await session.handleUnauthorized(
            challenge: #"Bearer resource_metadata="https://mcp.example.com/prm", scope="tasks:admin""#
        )
        #expect(!retry)
        #expect(await session.progress.status == "needsReauth")
        let url = try await session.beginSignIn()
        #expect(fixture.network.log.first == "GET https://mcp.example.com/prm")
        #expect(queryParameters(url)["scope"] == "profile tasks:admin")
    }

    @Test func registrationIsStoredAndReusedAfterARestart() async throws {
        let fixture = Fixture()
        try await fixture.signIn(try fixture.session())
        #expect(fixture.registrations.count == 1)

        // A new session over the same store: the gateway restarted.
        let restarted = try fixture.session()
        let url = try await restarted.beginSignIn()
        #expect(fixture.registrations.count == 1)
        #expect(queryParameters(url)["client_id"] == "client-1")
        #expect(queryParameters(url)["redirect_uri"] == Fixture.redirectURI)
    }

    @Test func aNewRedirectURIRegistersAgain() async throws {
        let fixture = Fixture()
        try await fixture.signIn(try fixture.session())
        let moved = try fixture.session(fixture.configuration(redirectURI: "http://127.0.0.1:9999/oauth/callback"))
        let url = try await moved.beginSignIn()
        #expect(fixture.registrations.count == 2)
        #expect(queryParameters(url)["client_id"] == "client-2")
    }

    @Test func aConfiguredClientSkipsRegistrationAndAuthenticatesWithBasic() async throws {
        let fixture = Fixture()
        let session = try fixture.session(fixture.configuration(clientID: "static", clientSecret: "s3cret"))
        let url = try await session.beginSignIn()
        #expect(fixture.registrations.count == 0)
        #expect(queryParameters(url)["client_id"] == "static")
        #expect(!fixture.progress.statuses.contains("registering"))
        #expect(await fixture.returnFromBrowser(url) == .signedIn(serverID: "tasks"))
        let exchange = try #require(fixture.network.requests(to: Fixture.tokenURL).last)
        #expect(
            exchange.header("Authorization") == "Basic " + Base64.encode(Array("static:s3cret".utf8), urlSafe: false)
        )
        #expect(formFields(exchange)["client_secret"] == nil)
        // The secret is not written to disk with the client settings.
        let stored = try #require(try fixture.secrets.load("oauth.tasks.client"))
        #expect(!String(decoding: stored, as: UTF8.self).contains("s3cret"))
    }

    @Test func clientSecretPostWhenTheServerOnlyAcceptsThat() async throws {
        let fixture = Fixture(metadata: ["token_endpoint_auth_methods_supported": ["client_secret_post"]])
        let session = try fixture.session(fixture.configuration(clientID: "static", clientSecret: "s3cret"))
        try await fixture.signIn(session)
        let exchange = try #require(fixture.network.requests(to: Fixture.tokenURL).last)
        #expect(exchange.header("Authorization") == nil)
        #expect(formFields(exchange)["client_secret"] == "s3cret")
        // A refresh authenticates the same way.
        fixture.clock.advance(3600)
        _ = try await session.accessToken()
        let refresh = try #require(fixture.network.requests(to: Fixture.tokenURL).last)
        #expect(formFields(refresh)["grant_type"] == "refresh_token")
        #expect(formFields(refresh)["client_secret"] == "s3cret")
    }

    @Test func noRegistrationEndpointAndNoClientIDFailsWithTheFix() async throws {
        let fixture = Fixture(metadata: ["registration_endpoint": nil])
        let session = try fixture.session()
        let error = await #expect(throws: OAuthError.self) { try await session.beginSignIn() }
        #expect(error?.kind == .registration)
        #expect(error?.message.contains("auth.clientId") == true)
        #expect(await session.progress == .failed(reason: error?.message ?? ""))
        #expect(fixture.router.pendingServerIDs.isEmpty)
    }

    @Test func accessDeniedEndsTheSignInAsFailed() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        let url = try await session.beginSignIn()
        let result = await fixture.returnFromBrowser(url, "error=access_denied")
        #expect(result == .failed(serverID: "tasks", reason: "the authorization server answered error=access_denied"))
        #expect(await session.progress == .failed(reason: "the authorization server answered error=access_denied"))
        #expect(fixture.network.requests(to: Fixture.tokenURL).isEmpty)
        #expect(await session.hasTokens == false)
    }

    @Test func issuerMismatchIsRefusedWhenTheServerSendsIss() async throws {
        let fixture = Fixture(metadata: ["authorization_response_iss_parameter_supported": true])
        let session = try fixture.session()
        let url = try await session.beginSignIn()
        let result = await fixture.returnFromBrowser(url, "code=good-code&iss=https%3A%2F%2Fattacker.example")
        guard case .failed = result else {
            Issue.record("an iss mismatch signed in: \(result)")
            return
        }
        #expect(fixture.network.requests(to: Fixture.tokenURL).isEmpty)
        #expect(await session.progress.status == "failed")

        let again = try await session.beginSignIn()
        let ok = await fixture.returnFromBrowser(again, "code=good-code&iss=https%3A%2F%2Fauth.example.com")
        #expect(ok == .signedIn(serverID: "tasks"))
    }

    @Test func aSecondSignInCancelsTheFirst() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        let first = try await session.beginSignIn()
        let second = try await session.beginSignIn()
        #expect(fixture.router.pendingServerIDs == ["tasks"])
        #expect(await fixture.returnFromBrowser(first).httpStatus == 400)
        #expect(await session.progress.status == "waitingForUser")
        #expect(await fixture.returnFromBrowser(second) == .signedIn(serverID: "tasks"))
    }

    @Test func anAbandonedSignInExpiresAsFailed() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        let url = try await session.beginSignIn()
        fixture.clock.advance(301)
        await fixture.router.removeExpired()
        #expect(await session.progress == .failed(reason: OAuthCallbackRouter.expiryReason))
        #expect(fixture.router.pendingServerIDs.isEmpty)
        #expect(await fixture.returnFromBrowser(url).httpStatus == 400)
    }

    @Test func aRefusedCodeFailsTheSignIn() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        let url = try await session.beginSignIn()
        let result = await fixture.returnFromBrowser(url, "code=forged")
        guard case .failed(_, let reason) = result else {
            Issue.record("a refused code signed in: \(result)")
            return
        }
        #expect(reason.contains("invalid_grant (unknown code)"))
        #expect(await session.progress == .failed(reason: reason))
    }

    @Test func signOutDuringTheExchangeDiscardsItsTokens() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        let url = try await session.beginSignIn()
        let issuer = fixture.issuer
        // The token request is held until the sign-out is done, so the sign-out falls inside the exchange
        // however the machine schedules them (fixed sleeps of 50 and 200 ms let it come first under load).
        let exchanging = Atomic(false)
        let signedOut = Atomic(false)
        fixture.network.on("POST", Fixture.tokenURL) { request in
            exchanging.store(true, ordering: .releasing)
            #expect(await Self.eventually { signedOut.load(ordering: .acquiring) }, "never signed out")
            return await issuer.handle(request)
        }
        let result = Task { await fixture.returnFromBrowser(url) }
        #expect(await Self.eventually { exchanging.load(ordering: .acquiring) }, "the exchange never began")
        try await session.clearTokens()
        signedOut.store(true, ordering: .releasing)
        guard case .failed = await result.value else {
            Issue.record("a sign-in cancelled by a sign-out completed")
            return
        }
        #expect(await session.hasTokens == false)
        #expect(try fixture.secrets.load("oauth.tasks.tokens") == nil)
        #expect(await session.progress == .needsReauth(reason: "signed out"))
    }

    @Test func cancelSignInStopsTheFlow() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        let url = try await session.beginSignIn()
        await session.cancelSignIn()
        #expect(fixture.router.pendingServerIDs.isEmpty)
        #expect(await session.progress.status == "needsReauth")
        #expect(await fixture.returnFromBrowser(url).httpStatus == 400)
    }

    @Test func theSessionRefusesABadServerURL() {
        let fixture = Fixture()
        #expect(throws: OAuthError.self) {
            try OAuthSession(
                configuration: OAuthSessionConfiguration(
                    serverID: "x",
                    serverURL: "file:///etc",
                    redirectURI: Fixture.redirectURI
                ),
                http: fixture.network.http,
                secrets: InMemorySecretStore(),
                router: fixture.router,
                logger: quietLogger
            )
        }
    }
}
