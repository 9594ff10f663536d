/// How a server gets a token of its own for each caller: the caller's bearer token exchanged at an
/// authorization server (RFC 8693, `"auth": {"type": "tokenExchange", ...}`).
package struct TokenExchangeSpec: Sendable, Hashable {
    /// The token endpoint that exchanges (required; https, or http on this machine).
    package var tokenEndpoint: String
    /// The gateway's client at that endpoint, when it authenticates (`clientSecret` needs `clientId`).
    package var clientId: String?
    package var clientSecret: String?
    /// RFC 8693 `audience`, when the authorization server names its resources that way.
    package var audience: String?
    /// RFC 8693 `resource`; nil: the server's own URL.
    package var resource: String?
    package var scopes: [String]

    package init(
        tokenEndpoint: String,
        clientId: String? = nil,
        clientSecret: String? = nil,
        audience: String? = nil,
        resource: String? = nil,
        scopes: [String] = []
    ) {
        self.tokenEndpoint = tokenEndpoint
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.audience = audience
        self.resource = resource
        self.scopes = scopes
    }

    static let keys = ["type", "tokenEndpoint", "clientId", "clientSecret", "audience", "resource", "scopes"]
}
