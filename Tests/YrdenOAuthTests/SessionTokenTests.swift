import Synchronization
import Testing
import YrdenProtocol
import YrdenStorage

@testable import YrdenOAuth

@Suite struct SessionTokenTests {
    func tokenRequests(_ fixture: Fixture, grant: String) -> [[String: String]] {
        fixture.network.requests(to: Fixture.tokenURL).map(formFields).filter { $0["grant_type"] == grant }
    }

    @Test func withoutTokensAccessTokenSaysASignInIsNeeded() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        let error = await #expect(throws: OAuthError.self) { try await session.accessToken() }
        #expect(error?.kind == .needsSignIn)
        #expect(error?.message.contains("server tasks needs an OAuth sign-in") == true)
        #expect(await session.prepare() == .needsReauth(reason: "not signed in yet"))
    }

    @Test func theTokenIsRefreshedShortlyBeforeItExpires() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        try await fixture.signIn(session)
        fixture.clock.advance(3000)
        #expect(try await session.accessToken() == "access-1")
        fixture.clock.advance(545)
        #expect(try await session.accessToken() == "access-2")
        let refresh = try #require(tokenRequests(fixture, grant: "refresh_token").first)
        #expect(refresh["refresh_token"] == "refresh-1")
        #expect(refresh["resource"] == Fixture.serverURL)
        #expect(refresh["client_id"] == "client-1")
    }

    @Test func concurrentCallersShareOneRefresh() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        try await fixture.signIn(session)
        fixture.issuer.state.withLock { $0.refreshDelay = .milliseconds(100) }
        fixture.clock.advance(3600)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await session.accessToken() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(tokens) == ["access-2"])
        #expect(tokenRequests(fixture, grant: "refresh_token").count == 1)
    }

    @Test func aRotatedRefreshTokenIsKeptAndStored() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        try await fixture.signIn(session)
        fixture.clock.advance(3600)
        _ = try await session.accessToken()
        fixture.clock.advance(3600)
        #expect(try await session.accessToken() == "access-3")
        #expect(
            tokenRequests(fixture, grant: "refresh_token").map { $0["refresh_token"] } == ["refresh-1", "refresh-2"]
        )
        let stored = try #require(try fixture.secrets.load("oauth.tasks.tokens"))
        let document = try JSONValue.parse(stored)
        #expect(document["refreshToken"] == "refresh-3")
        #expect(document["accessToken"] == "access-3")
    }

    @Test func anUnrotatedRefreshTokenIsKept() async throws {
        let fixture = Fixture()
        fixture.issuer.state.withLock { $0.rotate = false }
        let session = try fixture.session()
        try await fixture.signIn(session)
        fixture.clock.advance(3600)
        _ = try await session.accessToken()
        fixture.clock.advance(3600)
        _ = try await session.accessToken()
        #expect(
            tokenRequests(fixture, grant: "refresh_token").map { $0["refresh_token"] } == ["refresh-1", "refresh-1"]
        )
    }

    @Test func aRefusedRefreshForgetsTheTokensAndAsksForASignIn() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        try await fixture.signIn(session)
        fixture.issuer.state.withLock {
            $0.refreshFailure = (400, ["error": "invalid_grant", "error_description": "refresh token expired"])
        }
        fixture.clock.advance(3600)
        let error = await #expect(throws: OAuthError.self) { try await session.accessToken() }
        #expect(error?.kind == .needsSignIn)
        guard case .needsReauth(let reason) = await session.progress else {
            Issue.record("progress is not needsReauth")
            return
        }
        #expect(reason.contains("invalid_grant (refresh token expired)"))
        #expect(try fixture.secrets.load("oauth.tasks.tokens") == nil)
        #expect(await session.hasTokens == false)
        // The registration is kept for the next sign-in.
        #expect(try fixture.secrets.load("oauth.tasks.client") != nil)
    }

    @Test func aClientTheServerForgotIsRegisteredAgain() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        try await fixture.signIn(session)
        fixture.issuer.state.withLock { $0.refreshFailure = (401, ["error": "invalid_client"]) }
        fixture.clock.advance(3600)
        await #expect(throws: OAuthError.self) { try await session.accessToken() }
        #expect(try fixture.secrets.load("oauth.tasks.client") == nil)
        let url = try await session.beginSignIn()
        #expect(fixture.registrations.count == 2)
        #expect(queryParameters(url)["client_id"] == "client-2")
    }

    @Test func aRefreshWithoutAnAnswerKeepsTheTokensForALaterTry() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        try await fixture.signIn(session)
        fixture.issuer.state.withLock { $0.refreshFailure = (503, ["error": "temporarily_unavailable"]) }
        // Due but not expired: the current token is still handed out.
        fixture.clock.advance(3570)
        #expect(try await session.accessToken() == "access-1")
        // Expired: the failure surfaces, but nothing is forgotten.
        fixture.clock.advance(60)
        let error = await #expect(throws: OAuthError.self) { try await session.accessToken() }
        #expect(error?.kind == .network)
        #expect(await session.hasTokens)
        fixture.issuer.state.withLock { $0.refreshFailure = nil }
        #expect(try await session.accessToken() == "access-2")
    }

    @Test func expiredTokensAreRefreshedAtStartup() async throws {
        let fixture = Fixture()
        try await fixture.signIn(try fixture.session())
        fixture.clock.advance(7200)
        let restarted = try fixture.session()
        #expect(await restarted.prepare() == .complete)
        #expect(tokenRequests(fixture, grant: "refresh_token").count == 1)
        #expect(try await restarted.accessToken() == "access-2")
    }

    @Test func validTokensAreUsedAtStartupWithoutARequest() async throws {
        let fixture = Fixture()
        try await fixture.signIn(try fixture.session())
        let requests = fixture.network.requests.count
        let restarted = try fixture.session()
        #expect(await restarted.prepare() == .complete)
        #expect(try await restarted.accessToken() == "access-1")
        #expect(fixture.network.requests.count == requests)
    }

    @Test func unauthorizedRefreshesOnceAndIgnoresStaleRejections() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        try await fixture.signIn(session)
        #expect(
            await session.handleUnauthorized(challenge: #"Bearer error="invalid_token""#, rejectedToken: "access-1")
        )
        #expect(try await session.accessToken() == "access-2")
        // A request that left with the old token comes back 401 after the refresh: no second refresh.
        #expect(await session.handleUnauthorized(challenge: nil, rejectedToken: "access-1"))
        #expect(tokenRequests(fixture, grant: "refresh_token").count == 1)
    }

    @Test func unauthorizedWithoutARefreshTokenNeedsASignIn() async throws {
        let fixture = Fixture()
        fixture.network.on("POST", Fixture.tokenURL) { _ in
            jsonResponse(200, ["access_token": "only-access", "token_type": "Bearer"])
        }
        let session = try fixture.session()
        try await fixture.signIn(session)
        #expect(try await session.accessToken() == "only-access")
        #expect(await session.handleUnauthorized(challenge: nil, rejectedToken: "only-access") == false)
        #expect(await session.progress.status == "needsReauth")
        #expect(await session.hasTokens == false)
    }

    @Test func insufficientScopeAsksForAWiderSignInOnce() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        try await fixture.signIn(session)
        #expect(await session.grantedScopes == ["tasks:read", "tasks:write"])
        #expect(
            await session.handleForbidden(challenge: #"Bearer error="insufficient_scope", scope="tasks:read""#) == false
        )
        #expect(await session.handleForbidden(challenge: #"Bearer error="invalid_token""#) == false)

        let stepUp = await session.handleForbidden(
            challenge:
                #"Bearer error="insufficient_scope", scope="tasks:admin", resource_metadata="\#(Fixture.prmURL)""#
        )
        #expect(stepUp)
        #expect(await session.progress.status == "needsReauth")
        // The old token keeps working for what it can do.
        #expect(try await session.accessToken() == "access-1")
        let url = try await session.beginSignIn()
        #expect(queryParameters(url)["scope"] == "tasks:read tasks:write tasks:admin")
        // The first client was registered for fewer scopes: a server may refuse it the new one, so the
        // gateway registers again for the wider set.
        #expect(fixture.registrations.count == 2)
        let registration = try #require(fixture.network.requests(to: Fixture.registerURL).last)
        #expect(jsonBody(registration)?["scope"] == "tasks:read tasks:write tasks:admin")
        #expect(await fixture.returnFromBrowser(url) == .signedIn(serverID: "tasks"))
        // Asked for already: a repeat of the same 403 does not start another round.
        #expect(
            await session.handleForbidden(challenge: #"Bearer error="insufficient_scope", scope="tasks:admin""#)
                == false
        )
    }

    @Test func clearingTokensRemovesThemFromMemoryAndDisk() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let fixture = Fixture(secrets: try FileSecretStore(directory: scratch.path, key: nil))
        let session = try fixture.session()
        try await fixture.signIn(session)
        #expect(try permissions(scratch.file("oauth.tasks.tokens")) == 0o600)
        try await session.clearTokens()
        #expect(try AtomicFile.read(scratch.file("oauth.tasks.tokens")) == nil)
        #expect(await session.hasTokens == false)
        #expect(await session.progress == .needsReauth(reason: "signed out"))
        await #expect(throws: OAuthError.self) { try await session.accessToken() }
        // A restart finds nothing either.
        #expect(try await fixture.session().hasTokens == false)
    }

    @Test func tokensGoOnlyToTheServersOrigin() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        try await fixture.signIn(session)
        #expect(try await session.accessToken(forRequestTo: "https://mcp.example.com/messages?session=1") == "access-1")
        #expect(try await session.accessToken(forRequestTo: "https://MCP.example.com:443/mcp") == "access-1")
        let provider = session.tokenProvider
        #expect(try await provider(Fixture.serverURL) == "access-1")
        let others = ["https://evil.example.com/mcp", "http://mcp.example.com/mcp", "https://mcp.example.com:8443/mcp"]
        for other in others {
            let error = await #expect(throws: OAuthError.self) { try await session.accessToken(forRequestTo: other) }
            #expect(error?.kind == .wrongHost)
            await #expect(throws: OAuthError.self) { try await provider(other) }
        }
    }

    @Test func tokensStoredForAnotherURLAreNotUsed() async throws {
        let fixture = Fixture()
        try await fixture.signIn(try fixture.session())
        var moved = fixture.configuration()
        moved.serverURL = "https://other.example.com/mcp"
        let session = try fixture.session(moved)
        #expect(await session.hasTokens == false)
        #expect(try fixture.secrets.load("oauth.tasks.tokens") == nil)
    }

    @Test func aRefreshStartedBeforeASignOutDoesNotBringTokensBack() async throws {
        let fixture = Fixture()
        let session = try fixture.session()
        try await fixture.signIn(session)
        fixture.issuer.state.withLock { $0.refreshDelay = .milliseconds(200) }
        fixture.clock.advance(3600)
        let refreshed = Task { try await session.accessToken() }
        try await Task.sleep(for: .milliseconds(50))
        try await session.clearTokens()
        await #expect(throws: OAuthError.self) { try await refreshed.value }
        #expect(await session.hasTokens == false)
        #expect(try fixture.secrets.load("oauth.tasks.tokens") == nil)
    }
}
