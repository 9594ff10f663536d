import Testing
import YrdenProtocol
import YrdenStorage

@testable import YrdenOAuth

@Suite struct TokenTests {
    func tokens(issuedAt: Double, lifetime: Double?) -> OAuthTokens {
        OAuthTokens(
            accessToken: "at-secret",
            refreshToken: "rt-secret",
            scopes: ["a"],
            issuedAt: issuedAt,
            expiresAt: lifetime.map { issuedAt + $0 },
            resource: "https://mcp.example.com/mcp",
            issuer: "https://auth.example.com",
            tokenEndpoint: "https://auth.example.com/token",
            clientID: "client-1"
        )
    }

    @Test func refreshIsDueAMinuteBeforeExpiry() {
        let hour = tokens(issuedAt: 1000, lifetime: 3600)
        #expect(!hour.refreshDue(at: 1000))
        #expect(!hour.refreshDue(at: 4539))
        #expect(hour.refreshDue(at: 4540))
        #expect(!hour.isExpired(at: 4599))
        #expect(hour.isExpired(at: 4600))
    }

    @Test func shortLivedTokensAreRefreshedAtHalfTheirLife() {
        let short = tokens(issuedAt: 1000, lifetime: 30)
        #expect(!short.refreshDue(at: 1014))
        #expect(short.refreshDue(at: 1015))
    }

    @Test func tokensWithoutExpiryAreNeverDue() {
        let forever = tokens(issuedAt: 1000, lifetime: nil)
        #expect(!forever.refreshDue(at: 1e12))
        #expect(!forever.isExpired(at: 1e12))
    }

    @Test func storedFormRoundTrips() throws {
        let original = tokens(issuedAt: 1000.5, lifetime: 3600)
        let read = try #require(OAuthTokens(document: try JSONValue.parse(original.document.serialized())))
        #expect(read == original)
        #expect(OAuthTokens(document: ["version": 99]) == nil)
    }

    @Test func descriptionsNeverShowSecrets() {
        let text =
            "\(tokens(issuedAt: 0, lifetime: 10)) \(TokenResponse(accessToken: "at-secret", refreshToken: "rt-secret"))"
        #expect(!text.contains("at-secret"))
        #expect(!text.contains("rt-secret"))
        let client = ClientRegistration(
            clientID: "c",
            clientSecret: "cs-secret",
            authMethod: .clientSecretPost,
            issuer: "https://auth.example.com",
            redirectURI: "http://127.0.0.1/cb",
            secretExpiresAt: nil,
            isDynamic: true
        )
        #expect(!"\(client)".contains("cs-secret"))
        let configuration = OAuthSessionConfiguration(
            serverID: "s",
            serverURL: "https://mcp.example.com",
            redirectURI: "http://127.0.0.1/cb",
            clientID: "c",
            clientSecret: "cs-secret"
        )
        #expect(!"\(configuration)".contains("cs-secret"))
    }

    @Test func tokenResponseReadsLifetimeAsNumberOrStringAndRefusesOtherTypes() throws {
        let numeric = try #require(TokenResponse(["access_token": "a", "token_type": "bearer", "expires_in": 60]))
        #expect(numeric.expiresIn == 60)
        let text = try #require(TokenResponse(["access_token": "a", "token_type": "Bearer", "expires_in": "60"]))
        #expect(text.expiresIn == 60)
        #expect(TokenResponse(["access_token": "a", "token_type": "mac"]) == nil)
        #expect(TokenResponse(["token_type": "Bearer"]) == nil)
    }

    @Test(arguments: ["1e400", "nan", "inf", "-inf", "-5"])
    func aLifetimeThatIsNoTimeIsTakenAsUnsaid(_ lifetime: String) throws {
        let response = try #require(
            TokenResponse(["access_token": "a", "token_type": "Bearer", "expires_in": .string(lifetime)])
        )
        #expect(response.expiresIn == nil)
        #expect(TokenResponse(["access_token": "a", "expires_in": -5])?.expiresIn == nil)
    }

    @Test func basicCredentialsAreFormEncodedThenBase64() {
        let client = ClientRegistration(
            clientID: "my client",
            clientSecret: "p@ss:word",
            authMethod: .clientSecretBasic,
            issuer: "https://auth.example.com",
            redirectURI: "http://127.0.0.1/cb",
            secretExpiresAt: nil,
            isDynamic: false
        )
        let credentials = client.tokenRequestCredentials
        // base64("my%20client:p%40ss%3Aword")
        #expect(credentials.headers.first?.value == "Basic bXklMjBjbGllbnQ6cCU0MHNzJTNBd29yZA==")
        #expect(credentials.fields.map(\.0) == ["client_id"])
    }

    @Test func tokensAreStoredInPrivateFilesAndSealedWithAKey() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try SecretBox(keyText: String(repeating: "ab", count: 32))
        let sealed = OAuthCredentialStore(
            secrets: try FileSecretStore(directory: scratch.path, key: key),
            serverID: "tasks"
        )
        let original = tokens(issuedAt: 1000, lifetime: 3600)
        try sealed.saveTokens(original)
        let path = scratch.file("oauth.tasks.tokens")
        #expect(try permissions(path) == 0o600)
        let onDisk = try #require(try AtomicFile.read(path))
        #expect(!String(decoding: onDisk, as: UTF8.self).contains("at-secret"))
        #expect(try sealed.loadTokens() == original)

        try sealed.removeTokens()
        #expect(try AtomicFile.read(path) == nil)
        #expect(try sealed.loadTokens() == nil)
    }
}
