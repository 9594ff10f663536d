import YrdenProtocol

/// The OAuth client the gateway is at one authorization server: configured, named by a client ID metadata
/// document, or registered dynamically.
///
/// A dynamic registration is stored with the issuer and redirect URI it was made for, and reused only while
/// both still match: credentials belong to one authorization server, and the server matches the redirect URI
/// exactly. It is also made for the scopes asked for then: some servers (the MCP Python SDK's) refuse a scope
/// the client was not registered with, so a sign-in needing more scopes registers again. `description` never
/// shows the secret.
struct ClientRegistration: Sendable, Hashable, CustomStringConvertible {
    /// How the client authenticates at the token endpoint (RFC 7591 §2).
    enum AuthMethod: String, Sendable, Hashable {
        /// A public client: only `client_id` in the form.
        case none
        /// `Authorization: Basic` with the URL-encoded id and secret.
        case clientSecretBasic = "client_secret_basic"
        /// `client_secret` in the form.
        case clientSecretPost = "client_secret_post"
    }

    var clientID: String
    var clientSecret: String?
    var authMethod: AuthMethod
    /// The authorization server the client belongs to.
    var issuer: String
    /// The redirect URI it was registered with (dynamic) or is used with (configured).
    var redirectURI: String
    /// Seconds since the epoch when a dynamically issued secret expires; nil for never.
    var secretExpiresAt: Double?
    /// Registered by the gateway (RFC 7591) rather than configured.
    var isDynamic: Bool
    /// The scopes a dynamic registration covers, when it names any.
    var scopes: [String]? = nil

    var description: String {
        "ClientRegistration(\(clientID), secret \(clientSecret == nil ? "none" : "<redacted>"), \(authMethod.rawValue))"
    }

    /// Whether this stored registration can be used with `issuer`, `redirectURI` and `scopes` at `now`.
    func isUsable(issuer: String, redirectURI: String, scopes requested: [String]?, at now: Double) -> Bool {
        guard self.issuer == issuer, self.redirectURI == redirectURI else { return false }
        if let scopes, let requested, !Set(requested).isSubset(of: Set(scopes)) { return false }
        guard let secretExpiresAt else { return true }
        return now < secretExpiresAt - 60
    }

    /// The client as configured (`clientId`, `clientSecret`), authenticating the way the server accepts:
    /// Basic unless the server lists only `client_secret_post`.
    static func configured(
        clientID: String,
        clientSecret: String?,
        server: AuthorizationServerMetadata,
        redirectURI: String
    ) -> ClientRegistration {
        var method = AuthMethod.none
        if clientSecret != nil {
            method =
                server.acceptsTokenAuth("client_secret_basic") || !server.acceptsTokenAuth("client_secret_post")
                ? .clientSecretBasic : .clientSecretPost
        }
        return ClientRegistration(
            clientID: clientID,
            clientSecret: clientSecret,
            authMethod: method,
            issuer: server.issuer,
            redirectURI: redirectURI,
            secretExpiresAt: nil,
            isDynamic: false
        )
    }

    /// The client a metadata document describes (CIMD): its URL is the client_id, and it is public, as the
    /// document the operator publishes says (`token_endpoint_auth_method: none`); PKCE protects the code.
    static func metadataDocument(_ url: String, issuer: String, redirectURI: String) -> ClientRegistration {
        ClientRegistration(
            clientID: url,
            clientSecret: nil,
            authMethod: .none,
            issuer: issuer,
            redirectURI: redirectURI,
            secretExpiresAt: nil,
            isDynamic: false
        )
    }

    /// The form fields and headers that authenticate this client at the token endpoint.
    var tokenRequestCredentials: (fields: [(String, String)], headers: [(name: String, value: String)]) {
        switch authMethod {
        case .none:
            return ([("client_id", clientID)], [])
        case .clientSecretPost:
            return ([("client_id", clientID), ("client_secret", clientSecret ?? "")], [])
        case .clientSecretBasic:
            // RFC 6749 §2.3.1: both parts form-encoded before base64. client_id stays in the form too: some
            // servers (the MCP Python SDK's) look the client up by it.
            let pair = FormEncoding.encode(clientID) + ":" + FormEncoding.encode(clientSecret ?? "")
            let header = "Basic " + Base64.encode(Array(pair.utf8), urlSafe: false)
            return ([("client_id", clientID)], [(name: "Authorization", value: header)])
        }
    }

    // MARK: - Storage

    static let formatVersion = 1

    var document: JSONValue {
        var object: JSONObject = [
            "version": .int(Self.formatVersion),
            "clientId": .string(clientID),
            "tokenEndpointAuthMethod": .string(authMethod.rawValue),
            "issuer": .string(issuer),
            "redirectUri": .string(redirectURI),
            "dynamic": .bool(isDynamic),
        ]
        if let clientSecret { object["clientSecret"] = .string(clientSecret) }
        if let secretExpiresAt { object["clientSecretExpiresAt"] = .double(secretExpiresAt) }
        if let scopes { object["scopes"] = .array(scopes.map(JSONValue.string)) }
        return .object(object)
    }

    init?(document: JSONValue) {
        guard document["version"]?.intValue == Self.formatVersion,
            let clientID = document["clientId"]?.stringValue,
            let method = document["tokenEndpointAuthMethod"]?.stringValue.flatMap(AuthMethod.init(rawValue:)),
            let issuer = document["issuer"]?.stringValue,
            let redirectURI = document["redirectUri"]?.stringValue
        else { return nil }
        self.clientID = clientID
        clientSecret = document["clientSecret"]?.stringValue
        authMethod = method
        self.issuer = issuer
        self.redirectURI = redirectURI
        secretExpiresAt = document["clientSecretExpiresAt"]?.doubleValue
        isDynamic = document["dynamic"]?.boolValue ?? true
        scopes = document["scopes"]?.arrayValue?.compactMap(\.stringValue)
    }

    init(
        clientID: String,
        clientSecret: String?,
        authMethod: AuthMethod,
        issuer: String,
        redirectURI: String,
        secretExpiresAt: Double?,
        isDynamic: Bool,
        scopes: [String]? = nil
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.authMethod = authMethod
        self.issuer = issuer
        self.redirectURI = redirectURI
        self.secretExpiresAt = secretExpiresAt
        self.isDynamic = isDynamic
        self.scopes = scopes
    }
}
