import Synchronization
import Testing
import YrdenProtocol

@testable import YrdenResourceAuth

/// What a token the verifier has no verdict for costs: a refused token is not checked again for a while, one
/// token presented by many requests at once is checked once, and the checks running at once are bounded.
@Suite struct TokenChecksTests {
    static let now = AccessTokenVerifierTests.now
    static let introspect = "https://idp.test/introspect"

    static func verifier(_ http: IssuerHTTP, maxIntrospections: Int = 32) -> AccessTokenVerifier {
        AccessTokenVerifier(
            rules: AccessTokenRules(issuer: TokenMint.issuer),
            http: http,
            introspectionClient: ("gateway", "s3cret"),
            maxIntrospections: maxIntrospections,
            now: { Self.now }
        )
    }

    static let active: JSONValue = [
        "active": true, "sub": "bob", "iss": .string(TokenMint.issuer), "exp": .double(now + 600),
    ]

    @Test func aRefusedTokenIsNotCheckedAgainAtOnce() async {
        let mint = TokenMint()
        let verifier = Self.verifier(mint.http())
        for _ in 0..<3 { #expect(await verifier.verify("opaque-made-up") == .failure(.inactive)) }
        #expect(mint.fetches.count(Self.introspect) == 1, "one introspection for a token refused three times")
        let badlySigned = mint.rs256(TokenMint.claims(now: Self.now), key: TokenMint.strangerKey())
        for _ in 0..<3 { #expect(await verifier.verify(badlySigned) == .failure(.badSignature)) }
        #expect(verifier.rejections.count == 2)
    }

    @Test func aTokenTooLongIsRefusedUnreadAndUnremembered() async {
        let mint = TokenMint()
        let verifier = Self.verifier(mint.http())
        let huge = String(repeating: "a", count: 20_000) + "." + "b.c"
        #expect(await verifier.verify(huge) == .failure(.malformed("longer than 16384 bytes")))
        #expect(verifier.rejections.count == 0 && mint.fetches.count(Self.introspect) == 0)
    }

    @Test func aFewNewJWTsASecondAreCheckedInlineAndTheRestOffTheLoop() {
        let budget = InlineCheckBudget(perSecond: 50)
        let inline = (0..<80).filter { _ in budget.take(now: Self.now) }.count
        #expect(inline == 50, "a second's worth at once, then none")
        #expect(budget.take(now: Self.now + 0.5), "refilled at 50 a second")
        #expect((0..<30).filter { _ in budget.take(now: Self.now + 0.5) }.count == 24)
        #expect(!InlineCheckBudget(perSecond: 0).take(now: Self.now))
    }

    @Test func aRefusalIsForgottenAfterItsLifetime() {
        let cache = RejectionCache(limit: 8, lifetime: 30)
        let digest = TokenDigest("t")
        cache.store(digest, .badSignature, now: Self.now)
        #expect(cache.lookup(digest, now: Self.now + 29) == .badSignature)
        #expect(cache.lookup(digest, now: Self.now + 30) == nil)
        cache.store(TokenDigest("u"), .unknownKey, now: Self.now)
        cache.store(TokenDigest("v"), .issuerUnavailable("down"), now: Self.now)
        #expect(cache.count == 1, "what may change a moment later is not remembered")
    }

    @Test func theRefusalsKeptAreBounded() {
        let cache = RejectionCache(limit: 10, lifetime: 30)
        for index in 0..<1_000 { cache.store(TokenDigest("t\(index)"), .badSignature, now: Self.now) }
        #expect(cache.count <= 10)
        #expect(cache.lookup(TokenDigest("t999"), now: Self.now) == .badSignature, "the newest is kept")
    }

    @Test func requestsPresentingOneNewTokenTogetherShareOneIntrospection() async throws {
        let mint = TokenMint()
        let gate = Gate()
        let verifier = Self.verifier(gate.holding(Self.introspect, mint.http(opaque: ["opaque-1": Self.active])))
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10 { group.addTask { try await verifier.verify("opaque-1").get().user } }
            try await gate.waitForHeld(1)
            // Ten requests are waiting; give any that would start an introspection of its own the time to.
            try await Task.sleep(for: .milliseconds(50))
            gate.open()
            for try await user in group { #expect(user == "bob") }
        }
        #expect(mint.fetches.count(Self.introspect) == 1)
    }

    @Test func introspectionsInFlightAreBoundedAndThoseOverTheBoundAreNotQueued() async throws {
        let mint = TokenMint()
        let gate = Gate()
        let opaque: [String: JSONValue] = ["opaque-1": Self.active, "opaque-2": Self.active, "opaque-3": Self.active]
        let verifier = Self.verifier(gate.holding(Self.introspect, mint.http(opaque: opaque)), maxIntrospections: 2)
        try await withThrowingTaskGroup(of: String.self) { group in
            for token in ["opaque-1", "opaque-2"] { group.addTask { try await verifier.verify(token).get().user } }
            try await gate.waitForHeld(2)
            let third = await verifier.verify("opaque-3")
            guard case .failure(.busy) = third else {
                Issue.record("a third introspection was not refused at once: \(third)")
                return
            }
            gate.open()
            for try await user in group { #expect(user == "bob") }
        }
        #expect(try await verifier.verify("opaque-3").get().user == "bob", "refused while busy, not for good")
        #expect(mint.fetches.count(Self.introspect) == 3)
    }

    @Test func signatureChecksInFlightAreBoundedToo() async throws {
        let mint = TokenMint()
        let gate = Gate()
        let verifier = AccessTokenVerifier(
            rules: AccessTokenRules(issuer: TokenMint.issuer),
            http: gate.holding("https://idp.test/jwks", mint.http()),
            maxSignatureChecks: 1,
            inlineChecksPerSecond: 0,
            now: { Self.now }
        )
        let first = mint.rs256(TokenMint.claims(now: Self.now))
        let second = mint.rs256(TokenMint.claims(now: Self.now, ["jti": "second"]))
        try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask { try await verifier.verify(first).get().user }
            try await gate.waitForHeld(1)
            guard case .failure(.busy) = await verifier.verify(second) else {
                Issue.record("a second JWT was checked past the bound")
                return
            }
            gate.open()
            for try await user in group { #expect(user == "alice") }
        }
        #expect(try await verifier.verify(second).get().user == "alice")
    }
}

/// Holds the issuer's answers to one URL until ``open()``: the test sees how many requests it holds.
final class Gate: Sendable {
    private struct State {
        var opened = false
        var held: [CheckedContinuation<Void, Never>] = []
        var arrived = 0
    }

    private let state = Mutex(State())

    func holding(_ url: String, _ http: IssuerHTTP) -> IssuerHTTP {
        IssuerHTTP { request in
            if request.url == url { await self.pass() }
            return try await http.send(request)
        }
    }

    private func pass() async {
        await withCheckedContinuation { (go: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                state.arrived += 1
                guard !state.opened else { return true }
                state.held.append(go)
                return false
            }
            if now { go.resume() }
        }
    }

    func open() {
        let held = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.opened = true
            defer { state.held = [] }
            return state.held
        }
        for go in held { go.resume() }
    }

    /// Returns once `count` requests arrived (a lasting condition), within 10 s.
    func waitForHeld(_ count: Int) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while state.withLock({ $0.arrived }) < count {
            guard clock.now < deadline else {
                Issue.record("\(count) requests never reached the issuer")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
