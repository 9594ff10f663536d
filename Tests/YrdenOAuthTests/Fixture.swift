import Synchronization
import YrdenProtocol
import YrdenStorage

@testable import YrdenOAuth

/// A scripted authorization server's token endpoint: issues `access-N`/`refresh-N`, rotating refresh tokens
/// unless told not to, and refuses codes and refresh tokens it did not issue.
final class FakeTokenIssuer: Sendable {
    struct State {
        var issued = 0
        var liveRefreshTokens: Set<String> = []
        var rotate = true
        var lifetime: Int? = 3600
        /// When set, every refresh is answered with this status and body.
        var refreshFailure: (status: Int, body: JSONValue)?
        /// Suspends each refresh until the test releases it.
        var refreshDelay: Duration = .zero
    }

    let state = Mutex(State())
    let goodCode = "good-code"

    func handle(_ request: OAuthHTTPRequest) async -> OAuthHTTPResponse {
        let fields = formFields(request)
        switch fields["grant_type"] {
        case "authorization_code":
            guard fields["code"] == goodCode, fields["code_verifier"] != nil else {
                return jsonResponse(400, ["error": "invalid_grant", "error_description": "unknown code"])
            }
            return jsonResponse(200, issue(keepingRefresh: nil))
        case "refresh_token":
            let delay = state.withLock { $0.refreshDelay }
            if delay > .zero { try? await Task.sleep(for: delay) }
            if let failure = state.withLock({ $0.refreshFailure }) { return jsonResponse(failure.status, failure.body) }
            let presented = fields["refresh_token"] ?? ""
            guard state.withLock({ $0.liveRefreshTokens.contains(presented) }) else {
                return jsonResponse(400, ["error": "invalid_grant", "error_description": "refresh token revoked"])
            }
            return jsonResponse(200, issue(keepingRefresh: presented))
        default:
            return jsonResponse(400, ["error": "unsupported_grant_type"])
        }
    }

    private func issue(keepingRefresh presented: String?) -> JSONValue {
        state.withLock { state in
            state.issued += 1
            var object: JSONObject = ["access_token": .string("access-\(state.issued)"), "token_type": "Bearer"]
            if let lifetime = state.lifetime { object["expires_in"] = .int(lifetime) }
            if presented == nil || state.rotate {
                if let presented { state.liveRefreshTokens.remove(presented) }
                let refresh = "refresh-\(state.issued)"
                state.liveRefreshTokens.insert(refresh)
                object["refresh_token"] = .string(refresh)
            }
            return .object(object)
        }
    }
}

/// A protected MCP server (`https://mcp.example.com/mcp`) and its authorization server
/// (`https://auth.example.com`), scripted on a ``FakeNetwork``, plus everything a session needs.
struct Fixture {
    static let serverURL = "https://mcp.example.com/mcp"
    static let issuer = "https://auth.example.com"
    static let redirectURI = "http://127.0.0.1:8750/oauth/callback"
    static let prmURL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
    static let asMetadataURL = "https://auth.example.com/.well-known/oauth-authorization-server"
    static let tokenURL = "https://auth.example.com/token"
    static let registerURL = "https://auth.example.com/register"

    let network = FakeNetwork()
    let clock = TestClock()
    let secrets: any SecretStore
    let router: OAuthCallbackRouter
    let issuer = FakeTokenIssuer()
    let progress = ProgressLog()
    let registrations = Counter()

    init(secrets: any SecretStore = InMemorySecretStore(), metadata: JSONObject = [:]) {
        self.secrets = secrets
        router = OAuthCallbackRouter(clock: clock.oauthClock)
        network.json(
            "GET",
            Self.prmURL,
            [
                "resource": .string(Self.serverURL), "authorization_servers": [.string(Self.issuer)],
                "scopes_supported": ["tasks:read", "tasks:write"],
            ]
        )
        var document: JSONObject = [
            "issuer": .string(Self.issuer),
            "authorization_endpoint": "https://auth.example.com/authorize",
            "token_endpoint": .string(Self.tokenURL),
            "registration_endpoint": .string(Self.registerURL),
            "code_challenge_methods_supported": ["S256"],
            "response_types_supported": ["code"],
        ]
        for (key, value) in metadata { document[key] = value }
        network.json("GET", Self.asMetadataURL, .object(document))
        let registrations = registrations
        network.on("POST", Self.registerURL) { request in
            let number = registrations.increment()
            let redirects = jsonBody(request)?["redirect_uris"] ?? []
            return jsonResponse(
                201,
                [
                    "client_id": .string("client-\(number)"), "redirect_uris": redirects,
                    "token_endpoint_auth_method": "none",
                ]
            )
        }
        let issuer = issuer
        network.on("POST", Self.tokenURL) { request in await issuer.handle(request) }
    }

    func configuration(
        serverID: String = "tasks",
        redirectURI: String = Fixture.redirectURI,
        scopes: [String] = [],
        clientID: String? = nil,
        clientSecret: String? = nil
    ) -> OAuthSessionConfiguration {
        OAuthSessionConfiguration(
            serverID: serverID,
            serverURL: Self.serverURL,
            redirectURI: redirectURI,
            scopes: scopes,
            clientID: clientID,
            clientSecret: clientSecret
        )
    }

    func session(_ configuration: OAuthSessionConfiguration? = nil) throws -> OAuthSession {
        let progress = progress
        return try OAuthSession(
            configuration: configuration ?? self.configuration(),
            http: network.http,
            secrets: secrets,
            router: router,
            clock: clock.oauthClock,
            logger: quietLogger,
            onProgress: { progress.record($0) }
        )
    }

    /// The browser's part: the redirect back with `parameters` and the `state` of `authorizationURL`.
    func returnFromBrowser(
        _ authorizationURL: String,
        _ parameters: String = "code=good-code"
    ) async -> OAuthCallbackResult {
        let state = queryParameters(authorizationURL)["state"] ?? ""
        return await router.handleCallback(url: "\(Self.redirectURI)?\(parameters)&state=\(state)")
    }

    /// A whole sign-in that succeeds.
    @discardableResult
    func signIn(_ session: OAuthSession) async throws -> String {
        let url = try await session.beginSignIn()
        let result = await returnFromBrowser(url)
        guard result == .signedIn(serverID: session.serverID) else { throw OAuthError(.refused, "\(result)") }
        return url
    }
}
