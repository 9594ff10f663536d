import Crypto
import Synchronization
import YrdenProtocol

/// RFC 8693 token exchange for one server: a caller's bearer token in, a token for the server out.
///
/// Results are kept per caller token (under its SHA-256, never the token itself as a key) until 30 s before
/// they expire, or for a minute when the answer gives no lifetime, so a caller's calls make one exchange per
/// token lifetime; at most ``capacity`` are kept (the expired first, then the soonest to expire, make room).
/// Concurrent first calls of one caller share one exchange (ten calls a host starts together used to make ten),
/// and at most ``maxExchanging`` exchanges are in flight at once: past that a call fails at once, never queues.
package final class TokenExchange: Sendable {
    package struct Settings: Sendable, Hashable, CustomStringConvertible {
        package var tokenEndpoint: String
        package var clientID: String?
        package var clientSecret: String?
        package var audience: String?
        /// RFC 8693 `resource`: the server's canonical URL unless configured otherwise.
        package var resource: String
        package var scopes: [String]

        package init(
            tokenEndpoint: String,
            clientID: String?,
            clientSecret: String?,
            audience: String?,
            resource: String,
            scopes: [String]
        ) {
            self.tokenEndpoint = tokenEndpoint
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.audience = audience
            self.resource = resource
            self.scopes = scopes
        }

        package var description: String {
            "TokenExchange.Settings(\(tokenEndpoint), client \(clientID ?? "none")"
                + "\(clientSecret == nil ? "" : " with secret <redacted>"), resource \(resource))"
        }
    }

    static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
    /// Seconds an exchanged token is used for when the answer does not say how long it lives.
    static let unsaidLifetime = 60.0
    /// Seconds before its expiry an exchanged token stops being handed out.
    static let margin = 30.0
    /// Exchanges in flight at once, each for another caller token.
    static let maxExchanging = 256

    package let capacity: Int
    let settings: Settings
    let http: OAuthHTTP
    let clock: OAuthClock
    let endpoint: OAuthURL

    private struct Held {
        var token: String
        var usableUntil: Double
    }

    private let held = Mutex<[[UInt8]: Held]>([:])
    /// The exchange in flight per caller token (its SHA-256), which every call of that token awaits.
    private let exchanging = Mutex<[[UInt8]: Task<Result<String, OAuthError>, Never>]>([:])

    /// - Parameter serverURL: the server's URL; plain http to the token endpoint is allowed only on its host
    ///   or this machine, as for OAuth.
    package init(
        settings: Settings,
        serverURL: String,
        http: OAuthHTTP,
        clock: OAuthClock = .system,
        capacity: Int = 1024
    ) throws(OAuthError) {
        let host = OAuthURL(serverURL)?.host ?? ""
        endpoint = try URLPolicy(serverHost: host).check(settings.tokenEndpoint, purpose: "the token-exchange endpoint")
        self.settings = settings
        self.http = http
        self.clock = clock
        self.capacity = max(1, capacity)
    }

    /// How many exchanged tokens are held now.
    package var heldCount: Int { held.withLock { $0.count } }

    /// A token for the server standing for the holder of `subjectToken`: held, or from the exchange in flight
    /// for it, or exchanged now.
    package func token(for subjectToken: String) async throws(OAuthError) -> String {
        let key = Array(SHA256.hash(data: Array(subjectToken.utf8)))
        let now = clock.now()
        if let current = held.withLock({ $0[key] }), current.usableUntil > now { return current.token }
        let flight = exchanging.withLock { exchanging -> Task<Result<String, OAuthError>, Never>? in
            if let running = exchanging[key] { return running }
            guard exchanging.count < Self.maxExchanging else { return nil }
            // Unstructured: shared by every call of this caller token, so no one call's cancellation may end it;
            // it ends by itself within the HTTP client's deadline.
            let started = Task { await self.exchangeAndKeep(subjectToken, under: key) }
            exchanging[key] = started
            return started
        }
        guard let flight else {
            throw OAuthError(
                .network,
                "cannot exchange the caller's token now: \(Self.maxExchanging) exchanges are in flight; try again"
            )
        }
        return try await flight.value.get()
    }

    /// One exchange, its answer kept before the flight ends (so a call arriving after finds it held).
    private func exchangeAndKeep(_ subjectToken: String, under key: [UInt8]) async -> Result<String, OAuthError> {
        let outcome: Result<String, OAuthError>
        do throws(OAuthError) {
            let response = try await exchange(subjectToken)
            let lifetime = response.expiresIn.map { $0 - Self.margin } ?? Self.unsaidLifetime
            if lifetime > 0 {
                keep(Held(token: response.accessToken, usableUntil: clock.now() + lifetime), under: key)
            }
            outcome = .success(response.accessToken)
        } catch {
            outcome = .failure(error)
        }
        exchanging.withLock { $0[key] = nil }
        return outcome
    }

    private func keep(_ entry: Held, under key: [UInt8]) {
        let now = clock.now()
        held.withLock { held in
            if held[key] == nil, held.count >= capacity {
                held = held.filter { $0.value.usableUntil > now }
                if held.count >= capacity, let soonest = held.min(by: { $0.value.usableUntil < $1.value.usableUntil }) {
                    held.removeValue(forKey: soonest.key)
                }
            }
            held[key] = entry
        }
    }

    /// One exchange request. A 4xx with an OAuth error is `refused` (the caller's token is not accepted);
    /// anything else that fails is `network`. Neither token appears in a message.
    private func exchange(_ subjectToken: String) async throws(OAuthError) -> TokenResponse {
        var fields: [(String, String)] = [
            ("grant_type", Self.grantType),
            ("subject_token", subjectToken),
            ("subject_token_type", Self.accessTokenType),
            ("requested_token_type", Self.accessTokenType),
            ("resource", settings.resource),
        ]
        if let audience = settings.audience { fields.append(("audience", audience)) }
        if !settings.scopes.isEmpty { fields.append(("scope", settings.scopes.joined(separator: " "))) }
        var headers: [(name: String, value: String)] = []
        if let clientID = settings.clientID {
            let client = ClientRegistration(
                clientID: clientID,
                clientSecret: settings.clientSecret,
                authMethod: settings.clientSecret == nil ? .none : .clientSecretBasic,
                issuer: "",
                redirectURI: "",
                secretExpiresAt: nil,
                isDynamic: false
            )
            let credentials = client.tokenRequestCredentials
            fields += credentials.fields
            headers = credentials.headers
        }
        let url = endpoint.description
        let response = try await http.postForm(url, fields, headers: headers)
        if response.status == 200 {
            guard let document = try? JSONValue.parse(response.body), let tokens = Self.answer(document) else {
                throw OAuthError(
                    .network,
                    "cannot exchange the caller's token: the answer of \(url) has no access_token"
                )
            }
            return tokens
        }
        if (400..<500).contains(response.status), let answer = oauthError(response.body) {
            throw OAuthError(
                .refused,
                "\(url) refused to exchange the caller's token (HTTP \(response.status))"
                    + (oauthErrorSummary(response.body).map { ": \($0)" } ?? ""),
                serverCode: answer.code
            )
        }
        throw OAuthError(.network, "cannot exchange the caller's token: \(url) answered HTTP \(response.status)")
    }

    /// RFC 8693 §2.2.1: `token_type` may be `N_A` for a token that is not an access token; a Bearer one is
    /// what the server takes.
    static func answer(_ document: JSONValue) -> TokenResponse? {
        var normalized = document.objectValue ?? [:]
        if normalized["token_type"]?.stringValue?.uppercased() == "N_A" { normalized["token_type"] = "Bearer" }
        return TokenResponse(.object(normalized))
    }
}
