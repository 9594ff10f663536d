import Testing
import YrdenProtocol

@testable import YrdenOAuth

@Suite struct DiscoveryTests {
    let server = OAuthURL("https://mcp.example.com/mcp")!

    func discovery(_ network: FakeNetwork) -> MetadataDiscovery {
        MetadataDiscovery(http: network.http, policy: URLPolicy(serverHost: "mcp.example.com"))
    }

    static let asDocument: JSONValue = [
        "issuer": "https://auth.example.com/tenant1",
        "authorization_endpoint": "https://auth.example.com/tenant1/authorize",
        "token_endpoint": "https://auth.example.com/tenant1/token",
        "code_challenge_methods_supported": ["plain", "S256"],
    ]

    @Test func triesTheWellKnownURLsInTheSpecOrder() async throws {
        let network = FakeNetwork()
        network.json(
            "GET",
            "https://mcp.example.com/.well-known/oauth-protected-resource",
            ["resource": "https://mcp.example.com/", "authorization_servers": ["https://auth.example.com/tenant1"]]
        )
        network.json("GET", "https://auth.example.com/tenant1/.well-known/openid-configuration", Self.asDocument)
        let found = try await discovery(network).discover(server: server, challenge: nil)
        #expect(
            network.log == [
                "GET https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
                "GET https://mcp.example.com/.well-known/oauth-protected-resource",
                "GET https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "GET https://auth.example.com/.well-known/openid-configuration/tenant1",
                "GET https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        )
        #expect(found.server.tokenEndpoint == "https://auth.example.com/tenant1/token")
        // The metadata names a parent of the server URL: that is the resource the tokens are for.
        #expect(found.resource == "https://mcp.example.com/")
    }

    @Test func resourceMetadataFromTheChallengeComesFirst() async throws {
        let network = FakeNetwork()
        network.json(
            "GET",
            "https://mcp.example.com/custom/prm",
            ["resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://auth.example.com/tenant1"]]
        )
        network.json("GET", "https://auth.example.com/.well-known/oauth-authorization-server/tenant1", Self.asDocument)
        let challenge = BearerChallenge(resourceMetadata: "https://mcp.example.com/custom/prm")
        let found = try await discovery(network).discover(server: server, challenge: challenge)
        #expect(network.log.first == "GET https://mcp.example.com/custom/prm")
        #expect(network.log.count == 2)
        #expect(found.resource == "https://mcp.example.com/mcp")
    }

    @Test func refusesAnAuthorizationServerWithoutS256() async throws {
        let network = FakeNetwork()
        network.json(
            "GET",
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
            ["resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://auth.example.com"]]
        )
        network.json(
            "GET",
            "https://auth.example.com/.well-known/oauth-authorization-server",
            [
                "issuer": "https://auth.example.com", "authorization_endpoint": "https://auth.example.com/a",
                "token_endpoint": "https://auth.example.com/t",
            ]
        )
        let error = await #expect(throws: OAuthError.self) {
            try await discovery(network).discover(server: server, challenge: nil)
        }
        #expect(error?.kind == .discovery)
        #expect(error?.message.contains("S256") == true)
    }

    @Test func refusesMetadataForAnotherResource() async throws {
        let network = FakeNetwork()
        network.json(
            "GET",
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
            ["resource": "https://evil.example.com/mcp", "authorization_servers": ["https://auth.example.com"]]
        )
        let error = await #expect(throws: OAuthError.self) {
            try await discovery(network).discover(server: server, challenge: nil)
        }
        #expect(error?.message.contains("https://evil.example.com/mcp") == true)
    }

    @Test func refusesMetadataWhoseIssuerDiffers() async throws {
        let network = FakeNetwork()
        network.json(
            "GET",
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
            ["resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://auth.example.com/tenant1"]]
        )
        var other = Self.asDocument.objectValue!
        other["issuer"] = "https://auth.example.com/tenant2"
        network.json("GET", "https://auth.example.com/.well-known/oauth-authorization-server/tenant1", .object(other))
        let error = await #expect(throws: OAuthError.self) {
            try await discovery(network).discover(server: server, challenge: nil)
        }
        #expect(error?.message.contains("tenant2") == true)
    }

    @Test func issuerWithARootSlashMatchesTheBareOrigin() {
        #expect(MetadataDiscovery.sameIssuer("http://localhost:9000/", "http://localhost:9000"))
        #expect(!MetadataDiscovery.sameIssuer("https://as.example/a/", "https://as.example/a"))
        #expect(!MetadataDiscovery.sameIssuer("https://AS.example", "https://as.example"))
    }

    @Test func withoutResourceMetadataTheServersOriginIsTheIssuer() async throws {
        let network = FakeNetwork()
        network.json(
            "GET",
            "https://mcp.example.com/.well-known/oauth-authorization-server",
            [
                "issuer": "https://mcp.example.com", "authorization_endpoint": "https://mcp.example.com/authorize",
                "token_endpoint": "https://mcp.example.com/token", "code_challenge_methods_supported": ["S256"],
            ]
        )
        let found = try await discovery(network).discover(server: server, challenge: nil)
        #expect(found.resourceMetadata == nil)
        #expect(found.resource == "https://mcp.example.com/mcp")
        #expect(found.server.authorizationEndpoint == "https://mcp.example.com/authorize")
    }

    @Test func nothingFoundNamesTheURLsTried() async throws {
        let network = FakeNetwork()
        let error = await #expect(throws: OAuthError.self) {
            try await discovery(network).discover(server: server, challenge: nil)
        }
        #expect(error?.kind == .discovery)
        #expect(error?.message.contains("https://mcp.example.com/.well-known/openid-configuration (HTTP 404)") == true)
    }

    @Test func refusesAPlainHTTPEndpointOnAnotherHost() async throws {
        let network = FakeNetwork()
        network.json(
            "GET",
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
            ["resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://auth.example.com"]]
        )
        network.json(
            "GET",
            "https://auth.example.com/.well-known/oauth-authorization-server",
            [
                "issuer": "https://auth.example.com", "authorization_endpoint": "https://auth.example.com/a",
                "token_endpoint": "http://10.0.0.8/token", "code_challenge_methods_supported": ["S256"],
            ]
        )
        let error = await #expect(throws: OAuthError.self) {
            try await discovery(network).discover(server: server, challenge: nil)
        }
        #expect(error?.kind == .insecureURL)
    }
}
