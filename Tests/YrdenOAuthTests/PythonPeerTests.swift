import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import YrdenProtocol
import YrdenStorage

@testable import YrdenOAuth

/// The whole client against the MCP Python SDK's authorization server (`Tests/interop/servers/oauth_server.py`).
///
/// Opt-in: start the server and pass its MCP URL, e.g.
/// `YRDEN_OAUTH_PEER=http://127.0.0.1:PORT/mcp swift test --filter PythonPeerTests`. The interop suite drives
/// the same server through the whole gateway.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["YRDEN_OAUTH_PEER"] != nil))
struct PythonPeerTests {
    let mcpURL = ProcessInfo.processInfo.environment["YRDEN_OAUTH_PEER"] ?? ""

    @Test func signInCallAndRefreshAgainstThePythonSDK() async throws {
        let origin = try #require(OAuthURL(mcpURL)).origin
        try await HTTPClient.withHTTPClient(configuration: .init(redirectConfiguration: .disallow)) { client in
            let router = OAuthCallbackRouter()
            let session = try OAuthSession(
                configuration: OAuthSessionConfiguration(
                    serverID: "peer",
                    serverURL: mcpURL,
                    redirectURI: "http://127.0.0.1:1/oauth/callback"
                ),
                http: .live(client: client, timeout: .seconds(10)),
                secrets: InMemorySecretStore(),
                router: router,
                logger: quietLogger
            )
            let refused = try await initialize(token: nil, client: client)
            #expect(refused.status == 401)
            #expect(await session.handleUnauthorized(challenge: refused.challenge) == false)

            let url = try await session.beginSignIn()
            let consent = try await client.execute(HTTPClientRequest(url: url), deadline: .now() + .seconds(10))
            #expect(consent.status == .found)
            let callback = try #require(consent.headers.first(name: "Location"))
            #expect(await router.handleCallback(url: callback) == .signedIn(serverID: "peer"))

            let token = try await session.accessToken(forRequestTo: mcpURL)
            #expect(try await initialize(token: token, client: client).status == 200)

            var expire = HTTPClientRequest(url: origin + "/control/expire-access-tokens")
            expire.method = .POST
            _ = try await client.execute(expire, deadline: .now() + .seconds(10)).body.collect(upTo: 1 << 16)
            let expired = try await initialize(token: token, client: client)
            #expect(expired.status == 401)
            #expect(await session.handleUnauthorized(challenge: expired.challenge, rejectedToken: token))
            let renewed = try await session.accessToken(forRequestTo: mcpURL)
            #expect(renewed != token)
            #expect(try await initialize(token: renewed, client: client).status == 200)

            let stats = try await client.execute(
                HTTPClientRequest(url: origin + "/control/stats"),
                deadline: .now() + .seconds(10)
            )
            let document = try JSONValue.parse(Array(try await stats.body.collect(upTo: 1 << 20).readableBytesView))
            #expect(document["last_code_challenge_method"] == "S256")
            #expect(document["last_token_resource"]?.stringValue == mcpURL)
            #expect(document["refreshes"] == 1)
        }
    }

    private func initialize(token: String?, client: HTTPClient) async throws -> (status: Int, challenge: String?) {
        var request = HTTPClientRequest(url: mcpURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json, text/event-stream")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let body =
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","#
            + #""capabilities":{},"clientInfo":{"name":"yrden-oauth-test","version":"0"}}}"#
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await client.execute(request, deadline: .now() + .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers.first(name: "WWW-Authenticate"))
    }
}
