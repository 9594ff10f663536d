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
        router: OAuthCallbackRouter = OAuthCallbackRouter(),
        replicaStore: (any OAuthReplicaStore)? = nil
    ) throws -> OAuthSession {
        try OAuthSession(
            configuration: fixture.configuration(redirectURI: "http://127.0.0.1:\(port)/oauth/callback"),
            http: fixture.network.http,
            secrets: fixture.secrets,
            router: router,
            clock: fixture.clock.oauthClock,
            replicaStore: replicaStore,
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

    @Test func replicasDueAtOnceMakeOneRefreshBetweenThem() async throws {
        let fixture = Fixture()
        let lock = InProcessReplicaStore(secrets: fixture.secrets)
        let first = try replica(fixture, port: 8750, router: fixture.router, replicaStore: lock)
        try await fixture.signIn(first)
        let others = [try replica(fixture, replicaStore: lock), try replica(fixture, port: 8752, replicaStore: lock)]
        for other in others { #expect(await other.prepare() == .complete) }
        // The server takes a while to answer, so every replica asks for its turn while the first one is in it;
        // it refuses a spent refresh token, as a rotating server does.
        fixture.issuer.state.withLock { $0.refreshDelay = .milliseconds(100) }
        fixture.clock.advance(3600)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for session in [first] + others { group.addTask { try await session.accessToken() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(tokens == ["access-2", "access-2", "access-2"])
        #expect(refreshRequests(fixture).map { $0["refresh_token"] } == ["refresh-1"])
        let stored = try JSONValue.parse(try #require(try fixture.secrets.load("oauth.tasks.tokens")))
        #expect(stored["accessToken"] == "access-2")
        #expect(lock.turns.withLock { $0 } == 3)
    }

    @Test func theBrowsersReturnToAnotherReplicaFinishesTheSignIn() async throws {
        let fixture = Fixture()
        let lock = InProcessReplicaStore(secrets: fixture.secrets)
        let (routerA, routerB) = (OAuthCallbackRouter(), OAuthCallbackRouter())
        let started = try replica(fixture, port: 8751, router: routerA, replicaStore: lock)
        let reached = try replica(fixture, port: 8752, router: routerB, replicaStore: lock)
        routerB.lookElsewhere { state in await reached.signInStartedElsewhere(state: state) }
        #expect(await reached.prepare() == .needsReauth(reason: "not signed in yet"))
        let state = try #require(queryParameters(try await started.beginSignIn())["state"])
        // A balancer sent the browser back to the other replica.
        let callback = "https://gateway.example.com/oauth/callback?code=good-code&state=\(state)"
        #expect(await routerB.handleCallback(url: callback) == .signedIn(serverID: "tasks"))
        let exchange = fixture.network.requests(to: Fixture.tokenURL).map(formFields)
        #expect(exchange.map { $0["redirect_uri"] } == ["http://127.0.0.1:8751/oauth/callback"])
        #expect(exchange.map { $0["client_id"] } == ["client-1"])
        #expect(await reached.progress == .complete)
        await started.storedTokensChanged()
        #expect(await started.progress == .complete)
        #expect(routerA.pendingServerIDs.isEmpty)
        // The state works once, and no sign-in is left in the store.
        guard case .rejected = await routerB.handleCallback(url: callback) else {
            Issue.record("a used state was accepted again")
            return
        }
        let names = try #require(fixture.secrets as? InMemorySecretStore).names
        #expect(names == ["oauth.tasks.client", "oauth.tasks.tokens"])
    }

    @Test func aReturnBeforeThisReplicasCopyCaughtUpIsFoundInTheStoreItself() async throws {
        let fixture = Fixture()
        // The store itself, apart from the replicas' copies (the fixture's secrets), which it has not reached.
        let database = InProcessReplicaStore(secrets: InMemorySecretStore())
        let routerB = OAuthCallbackRouter()
        let started = try replica(fixture, port: 8751, replicaStore: database)
        let reached = try replica(fixture, port: 8752, router: routerB, replicaStore: database)
        routerB.lookElsewhere { state in await reached.signInStartedElsewhere(state: state) }
        let state = try #require(queryParameters(try await started.beginSignIn())["state"])
        let flows = try #require(fixture.secrets as? InMemorySecretStore).names.filter {
            $0.hasPrefix(SharedSignIns.prefix)
        }
        #expect(flows.isEmpty, "written to the store itself before the URL was shown, not queued in a copy")
        let callback = "https://gateway.example.com/oauth/callback?code=good-code&state=\(state)"
        #expect(await routerB.handleCallback(url: callback) == .signedIn(serverID: "tasks"))
    }

    @Test func expiredSignInsLeftInTheStoreAreSweptAndLiveOnesKept() async throws {
        let fixture = Fixture()
        let lock = InProcessReplicaStore(secrets: fixture.secrets)
        let secrets = try #require(fixture.secrets as? InMemorySecretStore)
        _ = try await replica(fixture, port: 8751, replicaStore: lock).beginSignIn()
        fixture.clock.advance(200)
        _ = try await replica(fixture, port: 8752, replicaStore: lock).beginSignIn()
        try secrets.save(SharedSignIns.prefix + "0badc0de", Array("not a sign-in".utf8))
        let flows = secrets.names.filter { $0.hasPrefix(SharedSignIns.prefix) }
        #expect(flows.count == 3)
        // The first is 320 s old, past its 300; the second is 120 s old; the third cannot be read.
        let now = fixture.clock.oauthClock.now() + 120
        #expect(SharedSignIns.removeExpired(secrets.names, from: secrets, at: now) == 2)
        #expect(secrets.names.filter { $0.hasPrefix(SharedSignIns.prefix) }.count == 1)
    }

    @Test func withoutAStoreSharedWithReplicasASignInStaysInTheProcess() async throws {
        let fixture = Fixture()
        _ = try await fixture.session().beginSignIn()
        #expect(try #require(fixture.secrets as? InMemorySecretStore).names == ["oauth.tasks.client"])
    }

    @Test func aTurnRefreshesOnlyTokensStillDue() {
        let now = 10_000.0
        let current = tokens("access-1", refresh: "refresh-1", issuedAt: now - 3600)
        #expect(RefreshTurn.decide(refreshing: current, stored: current, at: now) == .grant(current))
        #expect(RefreshTurn.decide(refreshing: current, stored: nil, at: now) == .signedOut)
        // Another replica refreshed first: its tokens are used, and the spent refresh token is not sent.
        let newer = tokens("access-2", refresh: "refresh-2", issuedAt: now - 5)
        #expect(RefreshTurn.decide(refreshing: current, stored: newer, at: now) == .adopt(newer))
        // A server that does not rotate: the same refresh token, a new access token.
        let unrotated = tokens("access-2", refresh: "refresh-1", issuedAt: now - 5)
        #expect(RefreshTurn.decide(refreshing: current, stored: unrotated, at: now) == .adopt(unrotated))
        // Other tokens, due as well (signed in elsewhere long ago): refreshed with their own refresh token.
        let otherDue = tokens("access-9", refresh: "refresh-9", issuedAt: now - 7200)
        #expect(RefreshTurn.decide(refreshing: current, stored: otherDue, at: now) == .grant(otherDue))
        let noRefresh = tokens("access-3", refresh: nil, issuedAt: now - 3590)
        #expect(RefreshTurn.decide(refreshing: current, stored: noRefresh, at: now) == .adopt(noRefresh))
    }

    func tokens(_ access: String, refresh: String?, issuedAt: Double) -> OAuthTokens {
        OAuthTokens(
            accessToken: access,
            refreshToken: refresh,
            scopes: nil,
            issuedAt: issuedAt,
            expiresAt: issuedAt + 3600,
            resource: Fixture.serverURL,
            issuer: Fixture.issuer,
            tokenEndpoint: Fixture.tokenURL,
            clientID: "client-1"
        )
    }
}

/// The store's refresh lock for sessions in one process: one turn at a time, first come first served,
/// reading and writing the secret store they share.
final class InProcessReplicaStore: OAuthReplicaStore {
    let secrets: any SecretStore
    let queue = TurnQueue()
    /// How many turns were taken.
    let turns = Mutex(0)

    init(secrets: any SecretStore) {
        self.secrets = secrets
    }

    func withTurn<Result: Sendable>(
        _ lock: String,
        reading name: String,
        _ body: @escaping @Sendable (_ stored: [UInt8]?) async throws -> (result: Result, store: [UInt8]?)
    ) async throws -> Result {
        await queue.enter()
        turns.withLock { $0 += 1 }
        do {
            let (result, store) = try await body(try secrets.load(name))
            if let store { try secrets.save(name, store) }
            await queue.leave()
            return result
        } catch {
            await queue.leave()
            throw error
        }
    }

    func read(_ name: String) async throws -> [UInt8]? {
        try secrets.load(name)
    }

    func write(_ name: String, _ bytes: [UInt8]) async throws {
        try secrets.save(name, bytes)
    }
}

actor TurnQueue {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
