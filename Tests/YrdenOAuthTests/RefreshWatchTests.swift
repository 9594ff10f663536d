import Synchronization
import Testing
import YrdenProtocol

@testable import YrdenOAuth

/// The refresh watch, which tracing makes its `oauth.refresh` span of: told once per refresh however many
/// callers share it, and told how the refresh ended.
@Suite struct RefreshWatchTests {
    /// What the watch was told: a start, then an end with `nil` (new tokens) or the failure's kind.
    final class Heard: Sendable {
        let events = Mutex<[String]>([])

        var watch: OAuthRefreshWatch {
            { [self] in
                events.withLock { $0.append("start") }
                return { failure in self.events.withLock { $0.append("end \(failure.map { "\($0.kind)" } ?? "ok")") } }
            }
        }
    }

    func watchedSession(_ fixture: Fixture, _ heard: Heard) throws -> OAuthSession {
        try OAuthSession(
            configuration: fixture.configuration(),
            http: fixture.network.http,
            secrets: fixture.secrets,
            router: fixture.router,
            clock: fixture.clock.oauthClock,
            logger: quietLogger,
            refreshWatch: heard.watch
        )
    }

    @Test func concurrentCallersOfOneRefreshAreOneStartAndOneEnd() async throws {
        let fixture = Fixture()
        let heard = Heard()
        let session = try watchedSession(fixture, heard)
        try await fixture.signIn(session)
        #expect(heard.events.withLock { $0 }.isEmpty, "a sign-in is not a refresh")
        fixture.issuer.state.withLock { $0.refreshDelay = .milliseconds(100) }
        fixture.clock.advance(3600)
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await session.accessToken() } }
            try await group.waitForAll()
        }
        #expect(heard.events.withLock { $0 } == ["start", "end ok"])
    }

    @Test func aRefusedRefreshEndsSayingASignInIsNeeded() async throws {
        let fixture = Fixture()
        let heard = Heard()
        let session = try watchedSession(fixture, heard)
        try await fixture.signIn(session)
        fixture.issuer.state.withLock {
            $0.refreshFailure = (400, ["error": "invalid_grant", "error_description": "refresh token expired"])
        }
        fixture.clock.advance(3600)
        let error = await #expect(throws: OAuthError.self) { try await session.accessToken() }
        #expect(error?.kind == .needsSignIn)
        #expect(heard.events.withLock { $0 } == ["start", "end needsSignIn"])
    }
}
