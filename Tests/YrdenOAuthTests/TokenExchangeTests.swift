import Testing
import YrdenProtocol

@testable import YrdenOAuth

/// RFC 8693 toward a server: what is asked, what is kept, and for how long.
@Suite struct TokenExchangeTests {
    static let endpoint = "https://idp.example.com/token"

    /// An exchange endpoint that answers `exchanged-<subject>-<n>`, living `lifetime` seconds.
    private static func network(lifetime: Int? = 300, refuse: Bool = false) -> (FakeNetwork, Counter) {
        let network = FakeNetwork()
        let count = Counter()
        network.on("POST", endpoint) { request in
            let n = count.increment()
            if refuse { return jsonResponse(400, ["error": "invalid_grant", "error_description": "subject unknown"]) }
            let subject = formFields(request)["subject_token"] ?? ""
            var answer: JSONObject = [
                "access_token": .string("exchanged-\(subject)-\(n)"), "token_type": "N_A",
                "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
            ]
            if let lifetime { answer["expires_in"] = .int(lifetime) }
            return jsonResponse(200, .object(answer))
        }
        return (network, count)
    }

    private static func exchange(
        _ network: FakeNetwork,
        _ clock: TestClock,
        clientSecret: String? = "xs3cret",
        capacity: Int = 1024
    ) throws -> TokenExchange {
        try TokenExchange(
            settings: .init(
                tokenEndpoint: endpoint,
                clientID: "gateway",
                clientSecret: clientSecret,
                audience: "tasks-api",
                resource: "https://tasks.example.com/mcp",
                scopes: ["tasks:read"]
            ),
            serverURL: "https://tasks.example.com/mcp",
            http: network.http,
            clock: clock.oauthClock,
            capacity: capacity
        )
    }

    @Test func theCallersTokenIsExchangedWithTheRFC8693Fields() async throws {
        let (network, _) = Self.network()
        let exchange = try Self.exchange(network, TestClock())
        #expect(try await exchange.token(for: "alice-token") == "exchanged-alice-token-1")
        let request = try #require(network.requests(to: Self.endpoint).first)
        let fields = formFields(request)
        #expect(fields["grant_type"] == "urn:ietf:params:oauth:grant-type:token-exchange")
        #expect(fields["subject_token"] == "alice-token")
        #expect(fields["subject_token_type"] == "urn:ietf:params:oauth:token-type:access_token")
        #expect(fields["requested_token_type"] == "urn:ietf:params:oauth:token-type:access_token")
        #expect(fields["resource"] == "https://tasks.example.com/mcp")
        #expect(fields["audience"] == "tasks-api")
        #expect(fields["scope"] == "tasks:read")
        #expect(request.header("Authorization")?.hasPrefix("Basic ") == true)
    }

    @Test func eachCallerTokenIsExchangedOnceUntilItsResultExpires() async throws {
        let (network, count) = Self.network(lifetime: 300)
        let clock = TestClock()
        let exchange = try Self.exchange(network, clock)
        #expect(try await exchange.token(for: "alice") == "exchanged-alice-1")
        #expect(try await exchange.token(for: "bob") == "exchanged-bob-2")
        #expect(try await exchange.token(for: "alice") == "exchanged-alice-1")
        #expect(count.count == 2)
        // Within 30 s of its expiry a held token is no longer handed out.
        clock.advance(271)
        #expect(try await exchange.token(for: "alice") == "exchanged-alice-3")
        #expect(count.count == 3)
    }

    @Test func anAnswerWithoutALifetimeIsHeldForAMinute() async throws {
        let (network, count) = Self.network(lifetime: nil)
        let clock = TestClock()
        let exchange = try Self.exchange(network, clock)
        _ = try await exchange.token(for: "alice")
        clock.advance(59)
        _ = try await exchange.token(for: "alice")
        #expect(count.count == 1)
        clock.advance(2)
        _ = try await exchange.token(for: "alice")
        #expect(count.count == 2)
    }

    @Test func whatIsHeldIsBounded() async throws {
        let (network, _) = Self.network()
        let exchange = try Self.exchange(network, TestClock(), capacity: 3)
        for caller in ["a", "b", "c", "d", "e"] { _ = try await exchange.token(for: caller) }
        #expect(exchange.heldCount == 3)
    }

    @Test func aRefusalSaysSoWithoutEitherToken() async throws {
        let (network, _) = Self.network(refuse: true)
        let exchange = try Self.exchange(network, TestClock())
        let error = await #expect(throws: OAuthError.self) { try await exchange.token(for: "alice-secret-token") }
        #expect(error?.kind == .refused)
        #expect(error?.message.contains("invalid_grant") == true)
        #expect(error?.message.contains("alice-secret-token") == false)
        #expect(error?.message.contains("xs3cret") == false)
    }

    @Test func plainHTTPToAnotherHostIsRefused() {
        #expect(throws: OAuthError.self) {
            try TokenExchange(
                settings: .init(
                    tokenEndpoint: "http://idp.example.com/token",
                    clientID: nil,
                    clientSecret: nil,
                    audience: nil,
                    resource: "https://tasks.example.com/mcp",
                    scopes: []
                ),
                serverURL: "https://tasks.example.com/mcp",
                http: FakeNetwork().http
            )
        }
    }
}
