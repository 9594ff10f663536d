import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import Testing
import YrdenHTTPServer
import YrdenProtocol
import YrdenStorage

@testable import YrdenOAuth

/// A protected MCP endpoint and its authorization server on one real loopback listener, checking what a
/// strict server checks: PKCE S256, the exact redirect URI, the `resource`, single-use codes and rotating
/// refresh tokens. Its issuer is written with a trailing slash, as the MCP Python SDK writes it.
final class LoopbackAuthorizationServer: Sendable {
    struct Grant {
        var challenge: String
        var redirectURI: String
        var resource: String
        var clientID: String
    }

    struct State {
        var port = 0
        /// Registered clients: their redirect URI and the scopes they may ask for.
        var clients: [String: (redirectURI: String, scopes: Set<String>)] = [:]
        var codes: [String: Grant] = [:]
        var accessTokens: Set<String> = []
        var refreshTokens: Set<String> = []
        var issued = 0
        var problems: [String] = []
    }

    let state = Mutex(State())

    var origin: String { "http://127.0.0.1:\(state.withLock { $0.port })" }
    var issuer: String { origin + "/" }
    var resource: String { origin + "/mcp" }
    var problems: [String] { state.withLock { $0.problems } }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        switch (request.method, request.path) {
        case ("POST", "/mcp"):
            let presented = request.headers["Authorization"] ?? ""
            if presented.hasPrefix("Bearer "),
                state.withLock({ $0.accessTokens.contains(String(presented.dropFirst(7))) })
            {
                return json(200, ["jsonrpc": "2.0", "id": 1, "result": [:]])
            }
            let challenge =
                #"Bearer error="invalid_token", "#
                + #"resource_metadata="\#(origin)/.well-known/oauth-protected-resource/mcp", scope="mcp:tools""#
            return HTTPResponse(status: 401, headers: [("WWW-Authenticate", challenge)])
        case ("GET", "/.well-known/oauth-protected-resource/mcp"):
            return json(200, ["resource": .string(resource), "authorization_servers": [.string(issuer)]])
        case ("GET", "/.well-known/oauth-authorization-server"):
            return json(
                200,
                [
                    "issuer": .string(issuer), "authorization_endpoint": .string(origin + "/authorize"),
                    "token_endpoint": .string(origin + "/token"),
                    "registration_endpoint": .string(origin + "/register"),
                    "code_challenge_methods_supported": ["S256"], "response_types_supported": ["code"],
                    "authorization_response_iss_parameter_supported": true,
                ]
            )
        case ("POST", "/register"):
            return register(request)
        case ("GET", "/authorize"):
            return authorize(request.query)
        case ("POST", "/token"):
            return token(request)
        default:
            return HTTPResponse(status: 404)
        }
    }

    private func register(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = try? JSONValue.parse(request.body),
            let redirect = body["redirect_uris"]?.arrayValue?.first?.stringValue
        else { return json(400, ["error": "invalid_client_metadata"]) }
        let scope = body["scope"]?.stringValue ?? ""
        let clientID = state.withLock { state in
            let id = "client-\(state.clients.count + 1)"
            state.clients[id] = (redirect, Set(scope.split(separator: " ").map(String.init)))
            return id
        }
        return json(
            201,
            ["client_id": .string(clientID), "redirect_uris": [.string(redirect)], "scope": .string(scope)]
        )
    }

    /// The user approves at once: redirect back with a code (and `iss`, as promised).
    private func authorize(_ query: [String: String]) -> HTTPResponse {
        let clientID = query["client_id"] ?? ""
        let requestedScopes = Set((query["scope"] ?? "").split(separator: " ").map(String.init))
        guard let client = state.withLock({ $0.clients[clientID] }), client.redirectURI == query["redirect_uri"],
            requestedScopes.isSubset(of: client.scopes),
            query["code_challenge_method"] == "S256", let challenge = query["code_challenge"],
            let state = query["state"], let resource = query["resource"]
        else {
            record("bad authorization request \(query)")
            return HTTPResponse(status: 400)
        }
        let code = SecureRandom.token()
        self.state.withLock {
            $0.codes[code] = Grant(
                challenge: challenge,
                redirectURI: client.redirectURI,
                resource: resource,
                clientID: clientID
            )
        }
        let location =
            client.redirectURI + "?" + FormEncoding.encode([("code", code), ("state", state), ("iss", issuer)])
        return HTTPResponse(status: 302, headers: [("Location", location)])
    }

    private func token(_ request: HTTPRequest) -> HTTPResponse {
        let pairs = FormEncoding.decode(String(decoding: request.body, as: UTF8.self)) ?? []
        let fields = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
        guard fields["resource"] == resource else {
            record("token request without the resource")
            return json(400, ["error": "invalid_target"])
        }
        switch fields["grant_type"] {
        case "authorization_code":
            guard let code = fields["code"], let grant = state.withLock({ $0.codes.removeValue(forKey: code) }),
                grant.clientID == fields["client_id"], grant.redirectURI == fields["redirect_uri"],
                let verifier = fields["code_verifier"], PKCE.challenge(for: verifier) == grant.challenge
            else {
                record("bad code exchange")
                return json(400, ["error": "invalid_grant"])
            }
            return json(200, issue())
        case "refresh_token":
            guard let presented = fields["refresh_token"],
                state.withLock({ $0.refreshTokens.remove(presented) }) != nil
            else { return json(400, ["error": "invalid_grant", "error_description": "refresh token not valid"]) }
            return json(200, issue())
        default:
            return json(400, ["error": "unsupported_grant_type"])
        }
    }

    private func issue() -> JSONValue {
        state.withLock { state in
            state.issued += 1
            let access = "loop-access-\(state.issued)-\(SecureRandom.token())"
            let refresh = "loop-refresh-\(state.issued)-\(SecureRandom.token())"
            state.accessTokens = [access]
            state.refreshTokens.insert(refresh)
            return [
                "access_token": .string(access), "refresh_token": .string(refresh), "token_type": "bearer",
                "expires_in": 3600, "scope": "mcp:tools",
            ]
        }
    }

    private func record(_ problem: String) {
        state.withLock { $0.problems.append(problem) }
    }

    private func json(_ status: Int, _ document: JSONValue) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: [("Content-Type", "application/json")],
            body: .bytes(document.serialized())
        )
    }
}

@Suite struct LoopbackAuthorizationServerTests {
    @Test func signInAndRefreshAgainstARealLoopbackServer() async throws {
        let authorizationServer = LoopbackAuthorizationServer()
        var logger = Logger(label: "yrden.oauth.test.server")
        logger.logLevel = .warning
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threadPoolSize: 2),
            logger: logger,
            handler: { await authorizationServer.handle($0) }
        )
        authorizationServer.state.withLock { $0.port = server.port }
        let configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)

        try await HTTPClient.withHTTPClient(configuration: configuration) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                defer { group.cancelAll() }
                try await exercise(authorizationServer, client: client)
            }
        }
        #expect(authorizationServer.problems.isEmpty)
    }

    private func exercise(_ authorizationServer: LoopbackAuthorizationServer, client: HTTPClient) async throws {
        let mcpURL = authorizationServer.resource
        let router = OAuthCallbackRouter()
        let session = try OAuthSession(
            configuration: OAuthSessionConfiguration(
                serverID: "loop",
                serverURL: mcpURL,
                redirectURI: authorizationServer.origin + "/oauth/callback"
            ),
            http: .live(client: client, timeout: .seconds(60)),
            secrets: InMemorySecretStore(),
            router: router,
            logger: quietLogger
        )

        // The MCP server refuses the gateway and says where its metadata is.
        let refused = try await post(mcpURL, token: nil, client: client)
        #expect(refused.status == 401)
        #expect(await session.handleUnauthorized(challenge: refused.challenge) == false)

        // Sign in: the "browser" opens the URL and follows the redirect to the callback.
        let authorizationURL = try await session.beginSignIn()
        #expect(queryParameters(authorizationURL)["scope"] == "mcp:tools")
        let consent = try await client.execute(
            HTTPClientRequest(url: authorizationURL),
            deadline: .now() + .seconds(60)
        )
        #expect(consent.status == .found)
        let callback = try #require(consent.headers.first(name: "Location"))
        #expect(await router.handleCallback(url: callback) == .signedIn(serverID: "loop"))

        let token = try await session.accessToken(forRequestTo: mcpURL)
        #expect(try await post(mcpURL, token: token, client: client).status == 200)

        // The server stops accepting that token: one refresh (rotating the refresh token) and it works again.
        authorizationServer.state.withLock { $0.accessTokens = [] }
        #expect(try await post(mcpURL, token: token, client: client).status == 401)
        #expect(await session.handleUnauthorized(challenge: nil, rejectedToken: token))
        let renewed = try await session.accessToken(forRequestTo: mcpURL)
        #expect(renewed != token)
        #expect(try await post(mcpURL, token: renewed, client: client).status == 200)
        authorizationServer.state.withLock { $0.accessTokens = [] }
        #expect(await session.handleUnauthorized(challenge: nil, rejectedToken: renewed))
        #expect(try await post(mcpURL, token: try await session.accessToken(), client: client).status == 200)
    }

    private func post(
        _ url: String,
        token: String?,
        client: HTTPClient
    ) async throws -> (status: Int, challenge: String?) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.body = .bytes(ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#))
        let response = try await client.execute(request, deadline: .now() + .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers.first(name: "WWW-Authenticate"))
    }
}
