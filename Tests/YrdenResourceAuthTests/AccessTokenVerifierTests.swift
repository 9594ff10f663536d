import Synchronization
import Testing
import YrdenProtocol

@testable import YrdenResourceAuth

/// The gateway's check of the access tokens clients present: what a good token yields, the bad-token table
/// (each refused for its own reason), and what the verifier fetches from the issuer (once, not per request).
@Suite struct AccessTokenVerifierTests {
    static let now = 1_800_000_000.0

    static func verifier(
        _ mint: TokenMint,
        opaque: [String: JSONValue] = [:],
        introspection: Bool = false
    )
        -> AccessTokenVerifier
    {
        AccessTokenVerifier(
            rules: AccessTokenRules(issuer: TokenMint.issuer),
            http: mint.http(opaque: opaque),
            introspectionClient: introspection ? ("gateway", "s3cret") : nil,
            now: { Self.now }
        )
    }

    @Test func aGoodTokenYieldsItsUserGroupsAndScopes() async throws {
        let mint = TokenMint()
        let verifier = Self.verifier(mint)
        for token in [mint.rs256(TokenMint.claims(now: Self.now)), mint.es256(TokenMint.claims(now: Self.now))] {
            let verdict = try await verifier.verify(token).get()
            #expect(verdict.user == "alice" && verdict.groups == ["ops"] && verdict.scopes == ["mcp:tools"])
            #expect(
                verdict.isFor(TokenMint.audience, or: "https://x.test")
                    && !verdict.isFor("https://other.test/mcp", or: "")
            )
        }
        #expect(mint.fetches.count("https://idp.test/jwks") == 1, "the key set is fetched once")
    }

    @Test(arguments: [
        ("expired", TokenRejection.expired), ("wrong issuer", .wrongIssuer), ("no audience", .wrongAudience),
        ("not yet", .notYetValid), ("bad signature", .badSignature), ("alg none", .algorithmNotAllowed("none")),
        ("HS256", .algorithmNotAllowed("HS256")), ("unknown kid", .unknownKey), ("no sub", .noUser),
    ])
    func aBadTokenIsRefusedForItsReason(_ case: String, _ expected: TokenRejection) async {
        let mint = TokenMint()
        let now = Self.now
        let token: String =
            switch `case` {
            case "expired": mint.rs256(TokenMint.claims(now: now, ["exp": .double(now - 61)]))
            case "wrong issuer": mint.rs256(TokenMint.claims(now: now, ["iss": "https://evil.test"]))
            case "no audience": mint.rs256(TokenMint.claims(now: now, ["aud": .null]))
            case "not yet": mint.rs256(TokenMint.claims(now: now, ["nbf": .double(now + 120)]))
            case "bad signature": mint.rs256(TokenMint.claims(now: now), key: TokenMint.strangerKey())
            case "alg none": TokenMint.unsigned(TokenMint.claims(now: now), alg: "none")
            case "HS256": TokenMint.unsigned(TokenMint.claims(now: now), alg: "HS256", signature: "c2ln")
            case "unknown kid": mint.rs256(TokenMint.claims(now: now), kid: "rsa-9")
            default: mint.rs256(TokenMint.claims(now: now, ["sub": .null]))
            }
        let outcome = await Self.verifier(mint).verify(token)
        #expect(outcome == .failure(expected))
    }

    @Test func aSmallClockSkewIsForgiven() async throws {
        let mint = TokenMint()
        let token = mint.rs256(TokenMint.claims(now: Self.now, ["exp": .double(Self.now - 30)]))
        #expect(try await Self.verifier(mint).verify(token).get().user == "alice")
    }

    @Test func unknownKeysRefetchTheKeySetAtMostOncePerInterval() async {
        let mint = TokenMint()
        let verifier = Self.verifier(mint)
        _ = await verifier.verify(mint.rs256(TokenMint.claims(now: Self.now)))
        for kid in ["made-up-1", "made-up-2", "made-up-3"] {
            let outcome = await verifier.verify(mint.rs256(TokenMint.claims(now: Self.now), kid: kid))
            #expect(outcome == .failure(.unknownKey))
        }
        #expect(mint.fetches.count("https://idp.test/jwks") == 1, "within the interval, no fetch per request")
    }

    @Test func aRotatedKeyIsFoundByARefetchOnceTheIntervalPassed() async throws {
        let mint = TokenMint()
        let clock = Mutex(Self.now)
        let verifier = AccessTokenVerifier(
            rules: AccessTokenRules(issuer: TokenMint.issuer),
            http: mint.http(),
            now: { clock.withLock { $0 } }
        )
        _ = try await verifier.verify(mint.rs256(TokenMint.claims(now: Self.now))).get()
        mint.rotate()
        let rotated = mint.rs256(TokenMint.claims(now: Self.now), kid: "rsa-2", key: mint.next)
        #expect(await verifier.verify(rotated) == .failure(.unknownKey), "too soon after the last fetch")
        clock.withLock { $0 += AccessTokenVerifier.keyRefetchInterval + 1 }
        #expect(try await verifier.verify(rotated).get().user == "alice", "the new key is fetched")
        #expect(mint.fetches.count("https://idp.test/jwks") == 2)
    }

    @Test func anOpaqueTokenIsIntrospectedOnceUntilItExpires() async throws {
        let mint = TokenMint()
        let active: JSONValue = [
            "active": true, "sub": "bob", "iss": .string(TokenMint.issuer), "exp": .double(Self.now + 600),
            "scope": "mcp:tools", "groups": ["dev"],
        ]
        let verifier = Self.verifier(mint, opaque: ["opaque-1": active], introspection: true)
        for _ in 0..<3 {
            let verdict = try await verifier.verify("opaque-1").get()
            #expect(verdict.user == "bob" && verdict.groups == ["dev"])
        }
        #expect(mint.fetches.count("https://idp.test/introspect") == 1)
        #expect(await verifier.verify("opaque-unknown") == .failure(.inactive))
        #expect(
            await Self.verifier(mint).verify("opaque-1")
                == .failure(.malformed("not a JWT, and no introspection client is configured"))
        )
    }

    @Test func anIssuerThatCannotBeReachedIsNotTheTokensFault() async {
        let mint = TokenMint()
        struct Down: Error {}
        let verifier = AccessTokenVerifier(
            rules: AccessTokenRules(issuer: TokenMint.issuer),
            http: IssuerHTTP { _ in throw Down() },
            now: { Self.now }
        )
        let outcome = await verifier.verify(mint.rs256(TokenMint.claims(now: Self.now)))
        guard case .failure(.issuerUnavailable) = outcome else {
            Issue.record("a token whose keys could not be fetched was judged: \(outcome)")
            return
        }
        #expect(verifier.verdicts.count == 0, "nothing is cached")
    }

    @Test func theVerdictCacheIsBounded() {
        let cache = VerdictCache(limit: 4)
        let verdict = VerifiedAccessToken(user: "u", audiences: [], groups: [], scopes: [], expiresAt: Self.now + 60)
        for index in 0..<10 { cache.store("t\(index)", verdict, now: Self.now) }
        #expect(cache.count <= 4)
        #expect(cache.lookup("t9", now: Self.now, skew: 0) != nil, "the newest is kept")
        #expect(cache.lookup("t9", now: Self.now + 61, skew: 0) == nil, "an expired verdict is not")
    }

    @Test func aVerdictInUseOutlivesTheOnesNoLongerPresented() {
        let cache = VerdictCache(limit: 4)
        let verdict = VerifiedAccessToken(user: "u", audiences: [], groups: [], scopes: [], expiresAt: Self.now + 60)
        cache.store("in use", verdict, now: Self.now)
        for index in 0..<100 {
            cache.store("t\(index)", verdict, now: Self.now)
            #expect(cache.lookup("in use", now: Self.now, skew: 0) != nil, "lost after \(index) others")
        }
        #expect(cache.count <= 4)
    }
}
