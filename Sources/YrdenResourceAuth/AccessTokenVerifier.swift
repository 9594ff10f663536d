import Synchronization
import YrdenProtocol

/// Checks the access tokens clients present to the gateway when it is an OAuth-protected resource
/// (`gateway.auth`): JWTs against the issuer's key set, opaque tokens through its introspection endpoint.
///
/// A verdict is cached per token until the token expires (``VerdictCache``), so a client's next request costs a
/// dictionary lookup, not a signature check; a refusal is remembered for ``rejectionLifetime`` under the token's
/// digest (``RejectionCache``). A token with neither is checked once however many requests present it at once,
/// off the event loop, with a bound on the checks running (``TokenChecks``); except a JWT within a small budget
/// per second (``InlineCheckBudget``), checked where the request runs, since sending it off costs more than the
/// check. The key set is fetched once, and
/// again only for a token signed with a key it lacks (a rotation), at most once per ``keyRefetchInterval``: a
/// stream of tokens with made-up `kid`s cannot make the gateway hammer its issuer. Every fetch has a deadline
/// (``IssuerHTTP``).
package final class AccessTokenVerifier: Sendable {
    package let rules: AccessTokenRules
    let http: IssuerHTTP
    /// `Authorization` for the introspection endpoint (HTTP Basic of the configured client); `nil`: opaque
    /// tokens are not accepted.
    let introspectionAuthorization: String?
    let now: @Sendable () -> Double
    let verdicts: VerdictCache
    let rejections: RejectionCache
    let checks: TokenChecks
    let inlineChecks: InlineCheckBudget

    /// The shortest time between two fetches of the key set, after the first.
    static let keyRefetchInterval: Double = 10
    /// Seconds a refusal is remembered: long enough that a client retrying a bad token in a loop, or an attacker
    /// repeating one, costs a lookup; short enough that nothing stale matters.
    static let rejectionLifetime: Double = 30

    private struct Keys {
        var metadata: IssuerMetadata?
        var set = JSONWebKeySet()
        /// When the key set was last asked for (successfully or not); `nil`: never.
        var fetchedAt: Double?
        /// The fetch in flight, which every request that needs it awaits: one fetch however many wait.
        var fetching: Task<Void, Never>?
        /// Why the last fetch failed; `nil` when it worked. A token whose key could not be looked for is the
        /// issuer's trouble (503), not the token's (401).
        var failure: String?
    }

    private let keys = Mutex(Keys())

    package init(
        rules: AccessTokenRules,
        http: IssuerHTTP,
        introspectionClient: (id: String, secret: String)? = nil,
        maxCachedTokens: Int = 10_000,
        maxSignatureChecks: Int = 256,
        maxIntrospections: Int = 32,
        inlineChecksPerSecond: Int = 50,
        now: @escaping @Sendable () -> Double
    ) {
        self.rules = rules
        self.http = http
        introspectionAuthorization = introspectionClient.map {
            let pair = FormBody.escape($0.id) + ":" + FormBody.escape($0.secret)
            return "Basic " + Base64.encode(Array(pair.utf8), urlSafe: false)
        }
        verdicts = VerdictCache(limit: maxCachedTokens)
        rejections = RejectionCache(limit: maxCachedTokens, lifetime: Self.rejectionLifetime)
        checks = TokenChecks(maxSignatures: maxSignatureChecks, maxIntrospections: maxIntrospections)
        inlineChecks = InlineCheckBudget(perSecond: inlineChecksPerSecond)
        self.now = now
    }

    /// The cached verdict of `token`, while it is good: the cost of a request whose token was seen before.
    package func cached(_ token: String) -> VerifiedAccessToken? {
        verdicts.lookup(token, now: now(), skew: rules.skew)
    }

    /// `token` checked, from the caches when it was checked before; the audience is the caller's to check.
    package func verify(_ token: String) async -> Result<VerifiedAccessToken, TokenRejection> {
        if let verdict = cached(token) { return .success(verdict) }
        // Before anything reads it whole on the event loop (its digest, its shape).
        guard token.utf8.count <= JSONWebToken.maxLength else {
            return .failure(.malformed("longer than \(JSONWebToken.maxLength) bytes"))
        }
        let digest = TokenDigest(token)
        if let rejection = rejections.lookup(digest, now: now()) { return .failure(rejection) }
        let isJWT = JSONWebToken.looksLikeJWT(token)
        // A JWT within the inline budget is checked here (a key fetch it needs is awaited, not waited for).
        if isJWT, inlineChecks.take(now: now()) { return await check(token, digest, isJWT: true) }
        return await checks.outcome(of: digest, kind: isJWT ? .signature : .introspection) {
            await self.check(token, digest, isJWT: isJWT)
        }
    }

    /// Checks `token` and remembers the outcome (before its check leaves ``TokenChecks``, so a request arriving
    /// after finds it).
    private func check(
        _ token: String,
        _ digest: TokenDigest,
        isJWT: Bool
    ) async -> Result<
        VerifiedAccessToken, TokenRejection
    > {
        let outcome: Result<VerifiedAccessToken, TokenRejection>
        do throws(TokenRejection) {
            outcome = .success(isJWT ? try await verifyJWT(token) : try await introspect(token))
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let verdict): verdicts.store(token, verdict, now: now())
        case .failure(let rejection): rejections.store(digest, rejection, now: now())
        }
        return outcome
    }

    private func verifyJWT(_ token: String) async throws(TokenRejection) -> VerifiedAccessToken {
        let jwt = try JSONWebToken(token)
        // The algorithm first: a token that says `none` or HS256 is refused before any key is looked for.
        guard rules.algorithms.contains(jwt.algorithm) else {
            throw .algorithmNotAllowed(jwt.algorithm.isEmpty ? "(empty)" : String(jwt.algorithm.prefix(16)))
        }
        let key = try await key(for: jwt)
        try JSONWebKeySet.verify(jwt, with: key, allowed: rules.algorithms)
        return try rules.check(jwt.claims, now: now(), requireExpiry: true)
    }

    /// The key that signed `jwt`: from the key set held, else from a fresh one when a fetch is allowed now.
    private func key(for jwt: JSONWebToken) async throws(TokenRejection) -> JSONWebKeySet.Key {
        if let key = keys.withLock({ $0.set.key(for: jwt) }) { return key }
        try await refreshKeys()
        guard let key = keys.withLock({ $0.set.key(for: jwt) }) else { throw .unknownKey }
        return key
    }

    /// Fetches the key set unless it was asked for within ``keyRefetchInterval`` (a failed first attempt is
    /// retried after 5 s); joins a fetch already running.
    private func refreshKeys() async throws(TokenRejection) {
        let time = now()
        let task = keys.withLock { keys -> Task<Void, Never>? in
            if let running = keys.fetching { return running }
            let wait = keys.set.keys.isEmpty ? 5 : Self.keyRefetchInterval
            if let last = keys.fetchedAt, time - last < wait { return nil }
            keys.fetchedAt = time
            // Unstructured: shared by every request that waits for the keys, so no one request's cancellation
            // may end it; it ends by itself within the fetches' deadlines.
            let fetch = Task { await self.fetchKeys() }
            keys.fetching = fetch
            return fetch
        }
        await task?.value
        if let failure = keys.withLock({ $0.failure }) { throw .issuerUnavailable(failure) }
    }

    private func fetchKeys() async {
        let failure: String?
        do throws(TokenRejection) {
            let set = try await fetchKeySet()
            keys.withLock { $0.set = set }
            failure = nil
        } catch {
            failure = error.message
        }
        keys.withLock {
            $0.failure = failure
            $0.fetching = nil
        }
    }

    private func fetchKeySet() async throws(TokenRejection) -> JSONWebKeySet {
        guard let url = try await metadata().keySetURL else {
            throw .issuerUnavailable("the issuer's metadata names no jwks_uri")
        }
        guard let answer = try? await http.send(IssuerHTTP.Request(url: url)) else {
            throw .issuerUnavailable("\(url) could not be reached")
        }
        guard answer.status == 200, let document = try? JSONValue.parse(answer.body),
            let set = JSONWebKeySet(json: document)
        else { throw .issuerUnavailable("\(url) answered \(answer.status) without a key set") }
        return set
    }

    /// The issuer's metadata, read once and kept.
    private func metadata() async throws(TokenRejection) -> IssuerMetadata {
        if let known = keys.withLock({ $0.metadata }) { return known }
        let fetched = try await IssuerMetadata.fetch(issuer: rules.issuer, http: http)
        keys.withLock { $0.metadata = fetched }
        return fetched
    }

    /// RFC 7662: asks the issuer about an opaque token.
    private func introspect(_ token: String) async throws(TokenRejection) -> VerifiedAccessToken {
        guard let authorization = introspectionAuthorization else {
            throw .malformed("not a JWT, and no introspection client is configured")
        }
        guard token.utf8.count <= JSONWebToken.maxLength else { throw .malformed("too long") }
        guard let url = try await metadata().introspectionURL else {
            throw .issuerUnavailable("the issuer's metadata names no introspection_endpoint")
        }
        let request = IssuerHTTP.Request(
            url: url,
            form: [("token", token), ("token_type_hint", "access_token")],
            authorization: authorization
        )
        guard let answer = try? await http.send(request) else {
            throw .issuerUnavailable("\(url) could not be reached")
        }
        guard answer.status == 200, let claims = (try? JSONValue.parse(answer.body))?.objectValue else {
            throw .issuerUnavailable("\(url) answered \(answer.status)")
        }
        guard claims["active"]?.boolValue == true else { throw .inactive }
        return try rules.check(claims, now: now(), requireExpiry: false)
    }
}
