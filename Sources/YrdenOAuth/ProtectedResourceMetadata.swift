import YrdenProtocol

/// The parts of an RFC 9728 protected-resource metadata document the gateway uses.
struct ProtectedResourceMetadata: Sendable, Hashable {
    /// The resource identifier the document describes.
    var resource: String
    /// Issuer identifiers of the authorization servers that issue tokens for it; the first one is used.
    var authorizationServers: [String]
    var scopesSupported: [String]?

    /// Reads a metadata document; nil when `resource` or a non-empty `authorization_servers` is missing.
    init?(_ document: JSONValue) {
        guard let resource = document["resource"]?.stringValue,
            let servers = document["authorization_servers"]?.arrayValue?.compactMap(\.stringValue),
            !servers.isEmpty
        else { return nil }
        self.resource = resource
        authorizationServers = servers
        scopesSupported = document["scopes_supported"]?.arrayValue?.compactMap(\.stringValue)
    }

    init(resource: String, authorizationServers: [String], scopesSupported: [String]? = nil) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.scopesSupported = scopesSupported
    }
}
