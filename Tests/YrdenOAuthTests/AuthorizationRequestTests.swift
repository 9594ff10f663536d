import Testing

@testable import YrdenOAuth

@Suite struct AuthorizationRequestTests {
    func request(endpoint: String, scopes: [String]?) throws -> AuthorizationRequest {
        AuthorizationRequest(
            endpoint: try #require(OAuthURL(endpoint)),
            clientID: "client id&1",
            redirectURI: "http://127.0.0.1:8750/oauth/callback",
            scopes: scopes,
            state: "state-123",
            codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
            resource: "https://mcp.example.com/mcp"
        )
    }

    @Test func urlCarriesEveryParameterEncoded() throws {
        let url = try request(endpoint: "https://auth.example.com/authorize", scopes: ["files:read", "files:write"]).url
        #expect(url.hasPrefix("https://auth.example.com/authorize?response_type=code&"))
        #expect(
            queryParameters(url) == [
                "response_type": "code",
                "client_id": "client id&1",
                "redirect_uri": "http://127.0.0.1:8750/oauth/callback",
                "scope": "files:read files:write",
                "state": "state-123",
                "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                "code_challenge_method": "S256",
                "resource": "https://mcp.example.com/mcp",
            ]
        )
        #expect(url.contains("client_id=client%20id%261&"))
        #expect(url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A8750%2Foauth%2Fcallback"))
    }

    @Test func noScopesLeavesScopeOut() throws {
        let url = try request(endpoint: "https://auth.example.com/authorize", scopes: nil).url
        #expect(queryParameters(url)["scope"] == nil)
        #expect(queryParameters(url)["resource"] == "https://mcp.example.com/mcp")
    }

    @Test func existingQueryOfTheEndpointIsKept() throws {
        let url = try request(endpoint: "https://auth.example.com/authorize?tenant=a", scopes: nil).url
        #expect(url.hasPrefix("https://auth.example.com/authorize?tenant=a&response_type=code&"))
        #expect(queryParameters(url)["tenant"] == "a")
    }

    @Test func scopeSelectionFollowsTheSpecOrder() {
        #expect(
            ScopeSelection.select(challenged: ["b"], configured: ["a"], previous: nil, supported: ["x"]) == ["a", "b"]
        )
        #expect(ScopeSelection.select(challenged: nil, configured: ["a"], previous: nil, supported: ["x"]) == ["a"])
        #expect(
            ScopeSelection.select(challenged: nil, configured: [], previous: nil, supported: ["x", "y"]) == ["x", "y"]
        )
        #expect(ScopeSelection.select(challenged: nil, configured: [], previous: nil, supported: nil) == nil)
        #expect(
            ScopeSelection.select(challenged: ["w", "r"], configured: [], previous: ["r"], supported: nil) == [
                "r", "w",
            ]
        )
    }
}
