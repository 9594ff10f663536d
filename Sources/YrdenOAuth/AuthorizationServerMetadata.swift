import YrdenProtocol

/// The parts of RFC 8414 (or OpenID Connect discovery) authorization-server metadata the gateway uses.
struct AuthorizationServerMetadata: Sendable, Hashable {
    var issuer: String
    var authorizationEndpoint: String
    var tokenEndpoint: String
    var registrationEndpoint: String?
    /// Nil when the document leaves the member out; the MCP spec then forbids going on.
    var codeChallengeMethodsSupported: [String]?
    var scopesSupported: [String]?
    /// Nil means the RFC 8414 default, `client_secret_basic`.
    var tokenEndpointAuthMethodsSupported: [String]?
    /// RFC 9207: the authorization server puts `iss` in every authorization response.
    var sendsIssuerInResponse: Bool
    /// The server takes an HTTPS URL of a client ID metadata document as client_id (CIMD).
    var acceptsClientIDMetadataDocuments: Bool

    /// Reads a metadata document; nil when `issuer`, `authorization_endpoint` or `token_endpoint` is missing.
    init?(_ document: JSONValue) {
        guard let issuer = document["issuer"]?.stringValue,
            let authorizationEndpoint = document["authorization_endpoint"]?.stringValue,
            let tokenEndpoint = document["token_endpoint"]?.stringValue
        else { return nil }
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        registrationEndpoint = document["registration_endpoint"]?.stringValue
        codeChallengeMethodsSupported = Self.strings(document["code_challenge_methods_supported"])
        scopesSupported = Self.strings(document["scopes_supported"])
        tokenEndpointAuthMethodsSupported = Self.strings(document["token_endpoint_auth_methods_supported"])
        sendsIssuerInResponse = document["authorization_response_iss_parameter_supported"]?.boolValue ?? false
        acceptsClientIDMetadataDocuments = document["client_id_metadata_document_supported"]?.boolValue ?? false
    }

    init(
        issuer: String,
        authorizationEndpoint: String,
        tokenEndpoint: String,
        registrationEndpoint: String? = nil,
        codeChallengeMethodsSupported: [String]? = ["S256"],
        scopesSupported: [String]? = nil,
        tokenEndpointAuthMethodsSupported: [String]? = nil,
        sendsIssuerInResponse: Bool = false,
        acceptsClientIDMetadataDocuments: Bool = false
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.registrationEndpoint = registrationEndpoint
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.scopesSupported = scopesSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.sendsIssuerInResponse = sendsIssuerInResponse
        self.acceptsClientIDMetadataDocuments = acceptsClientIDMetadataDocuments
    }

    /// PKCE with S256 is advertised; without it the MCP spec says the client must not proceed.
    var supportsS256: Bool { codeChallengeMethodsSupported?.contains("S256") ?? false }

    /// Whether the token endpoint accepts client authentication `method` (RFC 8414's default when unlisted).
    func acceptsTokenAuth(_ method: String) -> Bool {
        tokenEndpointAuthMethodsSupported?.contains(method) ?? (method == "client_secret_basic")
    }

    private static func strings(_ value: JSONValue?) -> [String]? {
        value?.arrayValue?.compactMap(\.stringValue)
    }
}
