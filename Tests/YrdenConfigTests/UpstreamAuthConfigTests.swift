import Testing

@testable import YrdenConfig

/// An upstream's `auth` keys beyond the basic OAuth ones: the client ID metadata document.
@Suite struct UpstreamAuthConfigTests {
    private static func oauth(_ auth: String) throws -> OAuthSpec? {
        let server = try Config.server(#"{"url": "https://tasks.example.com/mcp", "auth": \#(auth)}"#)
        guard case .http(_, _, .oauth(let spec), _) = server?.transport else { return nil }
        return spec
    }

    @Test func aClientMetadataURLIsKept() throws {
        let spec = try Self.oauth(
            #"{"type": "oauth", "clientMetadataURL": "https://gw.example.com/oauth/client.json"}"#
        )
        #expect(spec?.clientMetadataURL == "https://gw.example.com/oauth/client.json")
        // Plain http only on this machine, as for a development gateway.
        let local = try Self.oauth(#"{"type": "oauth", "clientMetadataURL": "http://127.0.0.1:8080/client.json"}"#)
        #expect(local?.clientMetadataURL == "http://127.0.0.1:8080/client.json")
    }

    @Test(arguments: [
        ("http://gw.example.com/client.json", "is not https"),
        ("https://gw.example.com", "has no path"),
        ("https://gw.example.com/", "has no path"),
        ("https://gw.example.com/client.json#x", "has a fragment"),
        ("gw.example.com/client.json", "is not an absolute http or https URL"),
    ])
    func aClientMetadataURLThatCIMDForbidsIsAProblem(url: String, problem: String) {
        let problems = Config.serverProblems(
            #"{"url": "https://tasks.example.com/mcp", "auth": {"type": "oauth", "clientMetadataURL": "\#(url)"}}"#
        )
        #expect(problems.count == 1)
        #expect(problems.first?.path == "mcpServers.s.auth.clientMetadataURL")
        #expect(problems.first?.message.contains(problem) == true, "\(problems)")
    }
}

/// `tokenExchange` and `forward`: calls carry their caller's credential, only where the config says so.
@Suite struct CallerCredentialConfigTests {
    private static func auth(_ auth: String) throws -> AuthSpec? {
        let server = try Config.server(#"{"url": "https://tasks.example.com/mcp", "auth": \#(auth)}"#)
        guard case .http(_, _, let spec, _) = server?.transport else { return nil }
        return spec
    }

    @Test func aTokenExchangeIsDecoded() throws {
        let auth = try Self.auth(
            #"{"type": "tokenExchange", "tokenEndpoint": "https://idp.example.com/token", "clientId": "gw", "#
                + #""clientSecret": "s", "audience": "tasks", "scopes": ["a", "b"]}"#
        )
        let expected = TokenExchangeSpec(
            tokenEndpoint: "https://idp.example.com/token",
            clientId: "gw",
            clientSecret: "s",
            audience: "tasks",
            scopes: ["a", "b"]
        )
        #expect(auth == .tokenExchange(expected))
        #expect(auth?.isPerCaller == true)
    }

    @Test func forwardingIsSaidExplicitlyAndTakesNoOtherKey() throws {
        #expect(try Self.auth(#"{"type": "forward"}"#) == .forward)
        let problems = Config.serverProblems(
            #"{"url": "https://tasks.example.com/mcp", "auth": {"type": "forward", "clientId": "x"}}"#
        )
        #expect(problems.map(\.path) == ["mcpServers.s.auth.clientId"])
        // Without an auth, nothing of the caller's goes upstream.
        #expect(try Self.auth(#"{"type": "none"}"#)?.isPerCaller == false)
    }

    @Test func aTokenExchangeNeedsItsEndpointAndKeepsToItsKeys() {
        let missing = Config.serverProblems(#"{"url": "https://t.example/mcp", "auth": {"type": "tokenExchange"}}"#)
        #expect(missing.first?.message.contains("tokenEndpoint") == true)
        let foreign = Config.serverProblems(
            #"{"url": "https://t.example/mcp", "auth": {"type": "tokenExchange", "tokenEndpoint": "https://i/t", "#
                + #""redirectPort": 80}}"#
        )
        #expect(foreign.map(\.path) == ["mcpServers.s.auth.redirectPort"])
        let oauthWithExchangeKey = Config.serverProblems(
            #"{"url": "https://t.example/mcp", "auth": {"type": "oauth", "tokenEndpoint": "https://i/t"}}"#
        )
        #expect(oauthWithExchangeKey.map(\.path) == ["mcpServers.s.auth.tokenEndpoint"])
    }

    /// An unset `${VAR}` in the endpoint fails only the server; the object's other mistakes still fail the
    /// file (schemathesis found `clientId: -1034` accepted beside such an endpoint).
    @Test func anUnresolvedEndpointHidesNoOtherMistake() {
        let problems = Config.serverProblems(
            #"{"url": "https://t.example/mcp", "auth": {"type": "tokenExchange", "#
                + #""tokenEndpoint": "${YRDEN_TEST_SURELY_UNSET}/token", "clientId": -1}}"#
        )
        #expect(problems.map(\.path) == ["mcpServers.s.auth.clientId"])
    }
}

/// `"perUser": true`: one sign-in per Yrden user.
@Suite struct PerUserConfigTests {
    @Test func perUserIsAnOAuthFlag() throws {
        let server = try Config.server(#"{"url": "https://t.example/mcp", "auth": {"type": "oauth", "perUser": true}}"#)
        guard case .http(_, _, .oauth(let spec), _) = server?.transport else {
            Issue.record("not an OAuth server")
            return
        }
        #expect(spec.perUser)
        let plain = try Config.server(#"{"url": "https://t.example/mcp", "auth": {"type": "oauth"}}"#)
        guard case .http(_, _, .oauth(let shared), _) = plain?.transport else { return }
        #expect(!shared.perUser)
        let misplaced = Config.serverProblems(
            #"{"url": "https://t.example/mcp", "auth": {"type": "forward", "perUser": true}}"#
        )
        #expect(misplaced.map(\.path) == ["mcpServers.s.auth.perUser"])
    }
}
