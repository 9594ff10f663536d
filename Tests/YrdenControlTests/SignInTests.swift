import Logging
import Synchronization
import Testing
import YrdenConfig
import YrdenEngine
import YrdenProtocol
import YrdenStorage
import YrdenTransport

@testable import YrdenControl
@testable import YrdenOAuth

/// OAuth sign-ins as the engine reaches them: progress reported as the admin API shows it, and both waits
/// woken by the session's changes rather than a timer.
@Suite struct SignInTests {
    static let url = "https://mcp.example.com/mcp"

    /// Statuses heard by `report`, in order.
    final class Reports: Sendable {
        private let heard = Mutex<[SignInStatus]>([])
        func record(_ status: SignInStatus) { heard.withLock { $0.append(status) } }
        var statuses: [String] { heard.withLock { $0.map(\.status) } }
    }

    private func spec(_ id: String = "remote") throws -> ServerSpec {
        let document = ConfigDocument([
            "mcpServers": [id: ["url": .string(Self.url), "auth": ["type": "oauth"]]]
        ])
        return try #require(try document.decoded(environment: [:], source: "test").servers.first)
    }

    /// Credentials whose network answers nothing (every discovery fails), with `tokens` stored beforehand.
    private func credentials(storing tokens: Bool, for id: String = "remote") throws -> OAuthCredentials {
        let secrets = InMemorySecretStore()
        if tokens {
            try OAuthCredentialStore(secrets: secrets, serverID: id).saveTokens(
                OAuthTokens(
                    accessToken: "access-1",
                    refreshToken: nil,
                    scopes: nil,
                    issuedAt: 0,
                    expiresAt: nil,
                    resource: Self.url,
                    issuer: "https://auth.example.com",
                    tokenEndpoint: "https://auth.example.com/token",
                    clientID: "client"
                )
            )
        }
        return OAuthCredentials(
            router: OAuthCallbackRouter(),
            secrets: secrets,
            redirectURI: "http://127.0.0.1:8750/oauth/callback",
            http: OAuthHTTP { _ in OAuthHTTPResponse(status: 404) },
            logger: Logger(label: "test")
        )
    }

    @Test func progressMapsToTheAdminAPIsAuthProgressAndItsLogLine() {
        let waiting = SignInStatus(.waitingForUser(authorizationURL: "https://a/authorize", expiresAt: 12))
        #expect(
            waiting == SignInStatus(status: "waitingForUser", authorizationURL: "https://a/authorize", expiresAt: 12)
        )
        #expect(waiting.logLine == "sign-in needed: open https://a/authorize")
        #expect(SignInStatus(.failed(reason: "denied")) == SignInStatus(status: "failed", reason: "denied"))
        #expect(SignInStatus(.failed(reason: "denied")).logLine == "sign-in failed: denied")
        #expect(SignInStatus(.needsReauth(reason: "signed out")).logLine == "sign-in needed: signed out")
        #expect(SignInStatus(.complete).logLine == "sign-in: complete")
    }

    @Test func aServerWithoutOAuthHasNoSignIn() throws {
        let spec = try #require(
            try ConfigDocument(["mcpServers": ["local": ["command": "true"]]]).decoded(environment: [:], source: "t")
                .servers.first
        )
        #expect(try credentials(storing: false).signIn(for: spec, report: { _ in }) == nil)
    }

    @Test func storedTokensAreReadyAtOnceAndASignOutEndsTheInvalidationWait() async throws {
        let credentials = try credentials(storing: true)
        let reports = Reports()
        let signIn = try #require(try credentials.signIn(for: try spec(), report: reports.record))
        try await signIn.ready(waiting: { Issue.record("stored tokens should not wait for a user") })
        #expect(reports.statuses == ["complete"])
        #expect(try await signIn.authorizer.authorization() == "Bearer access-1")
        let invalidated = Task { await signIn.invalidated() }
        try await waitUntil { credentials.waitCount(for: "remote") == 1 }
        try await #require(credentials.existing("remote")).clearTokens()
        await invalidated.value
        #expect(reports.statuses == ["complete", "needsReauth"])
    }

    @Test func withoutTokensTheWaitStartsASignInReportsItAndEndsWhenCancelled() async throws {
        let credentials = try credentials(storing: false)
        let reports = Reports()
        let waited = Mutex(0)
        let signIn = try #require(try credentials.signIn(for: try spec(), report: reports.record))
        let ready = Task { () -> UpstreamError? in
            do throws(UpstreamError) {
                try await signIn.ready(waiting: { waited.withLock { $0 += 1 } })
                return nil
            } catch {
                return error
            }
        }
        // Discovery fails (the network answers 404), so the sign-in ends `failed` and the wait goes on.
        try await waitUntil { reports.statuses.last == "failed" }
        #expect(reports.statuses == ["needsReauth", "discovering", "failed"], "where it stood first, then each change")
        #expect(waited.withLock { $0 } == 1)
        ready.cancel()
        let error = await ready.value
        #expect(error?.kind == .notConnected)
        #expect(credentials.waitCount(for: "remote") == 0, "a cancelled wait leaves no follower behind")
    }

    @Test func forgettingAServerDropsItsSession() throws {
        let credentials = try credentials(storing: false)
        _ = try credentials.signIn(for: try spec(), report: { _ in })
        #expect(credentials.existing("remote") != nil)
        credentials.forget("remote")
        #expect(credentials.existing("remote") == nil)
    }

    @Test func operatorsAreToldWhyASignInCannotStart() async throws {
        let document = ConfigDocument([
            "mcpServers": [
                "remote": ["url": .string(Self.url), "auth": ["type": "oauth"], "disabled": true],
                "local": ["command": "true", "disabled": true],
            ]
        ])
        let gateway = Gateway(
            config: try document.decoded(environment: [:], source: "test"),
            logger: Logger(label: "test")
        )
        let control = SignInControl(gateway: gateway, credentials: try credentials(storing: false))
        await #expect(throws: ControlError.unknownServer("nope")) { _ = try await control.start("nope") }
        await #expect(throws: ControlError.conflict("server local does not use OAuth")) {
            _ = try await control.start("local")
        }
        await #expect(throws: ControlError.conflict("this gateway was started without OAuth support")) {
            _ = try await SignInControl(gateway: gateway).start("remote")
        }
        #expect(await control.status("remote") == nil, "reading starts nothing")
        let started = try await control.start("remote")
        #expect(started.status == "failed", "discovery cannot reach the server: \(started)")
        #expect(await control.status("remote") == started)
        #expect(await control.handleCallback(query: ["state": "forged", "code": "x"]).httpStatus == 400)
    }

    /// Waits until `condition` holds, failing the test after five seconds.
    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("the condition did not hold within 5 s")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
