import YrdenProtocol

/// The tokens held for one server, with what they are bound to.
///
/// `resource`, `issuer`, `tokenEndpoint` and `clientID` record where the tokens came from: the access token
/// goes only to that resource, and the refresh token only to that token endpoint, with that client.
/// `client` is that client itself (without a configured secret, which stays in the config): replicas sharing
/// the tokens each register a client of their own when they start a sign-in, and the stored registration is
/// whichever came last, so a refresh must not depend on it. `description` never shows a token.
struct OAuthTokens: Sendable, Hashable, CustomStringConvertible {
    var accessToken: String
    var refreshToken: String?
    /// The scopes granted (the token response's `scope`, else those requested); nil when unknown.
    var scopes: [String]?
    /// Seconds since the epoch when the tokens were received.
    var issuedAt: Double
    /// Seconds since the epoch when the access token expires; nil when the server did not say.
    var expiresAt: Double?
    var resource: String
    var issuer: String
    var tokenEndpoint: String
    var clientID: String
    /// The client the tokens were issued to; nil in tokens stored before it was kept.
    var client: ClientRegistration?

    /// How long before expiry a refresh is due: a minute, or half the lifetime of a shorter-lived token, so
    /// a request never leaves with a token about to die and a 30-second token is not refreshed at once.
    static let refreshMargin: Double = 60

    /// Whether the access token should be refreshed before use at `now`.
    func refreshDue(at now: Double) -> Bool {
        guard let expiresAt else { return false }
        let margin = min(Self.refreshMargin, max(0, expiresAt - issuedAt) / 2)
        return now >= expiresAt - margin
    }

    /// Whether the access token is past its expiry at `now`.
    func isExpired(at now: Double) -> Bool {
        guard let expiresAt else { return false }
        return now >= expiresAt
    }

    var description: String {
        var text = "OAuthTokens(access token <redacted>, "
        text += refreshToken == nil ? "no refresh token" : "refresh token <redacted>"
        if let expiresAt { text += ", expires at \(expiresAt)" }
        return text + ", issuer \(issuer), resource \(resource))"
    }

    // MARK: - Storage

    static let formatVersion = 1

    /// The stored form: a JSON object, versioned.
    var document: JSONValue {
        var object: JSONObject = [
            "version": .int(Self.formatVersion),
            "accessToken": .string(accessToken),
            "issuedAt": .double(issuedAt),
            "resource": .string(resource),
            "issuer": .string(issuer),
            "tokenEndpoint": .string(tokenEndpoint),
            "clientId": .string(clientID),
        ]
        if let refreshToken { object["refreshToken"] = .string(refreshToken) }
        if let scopes { object["scopes"] = .array(scopes.map(JSONValue.string)) }
        if let expiresAt { object["expiresAt"] = .double(expiresAt) }
        if let client { object["client"] = client.document }
        return .object(object)
    }

    /// Reads the stored form; nil for another version or a document missing a member.
    init?(document: JSONValue) {
        guard document["version"]?.intValue == Self.formatVersion,
            let accessToken = document["accessToken"]?.stringValue,
            let issuedAt = document["issuedAt"]?.doubleValue,
            let resource = document["resource"]?.stringValue,
            let issuer = document["issuer"]?.stringValue,
            let tokenEndpoint = document["tokenEndpoint"]?.stringValue,
            let clientID = document["clientId"]?.stringValue
        else { return nil }
        self.accessToken = accessToken
        refreshToken = document["refreshToken"]?.stringValue
        scopes = document["scopes"]?.arrayValue?.compactMap(\.stringValue)
        self.issuedAt = issuedAt
        expiresAt = document["expiresAt"]?.doubleValue
        self.resource = resource
        self.issuer = issuer
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        client = document["client"].flatMap(ClientRegistration.init(document:))
    }

    init(
        accessToken: String,
        refreshToken: String?,
        scopes: [String]?,
        issuedAt: Double,
        expiresAt: Double?,
        resource: String,
        issuer: String,
        tokenEndpoint: String,
        clientID: String,
        client: ClientRegistration? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.scopes = scopes
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.resource = resource
        self.issuer = issuer
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        self.client = client
    }
}
