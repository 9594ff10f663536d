/// `gateway.auth`: the gateway as an OAuth-protected resource. Clients present access tokens that `issuer`
/// issued for the gateway (`audience`, or one endpoint's own resource URI), carrying `scopes`; the user is the
/// `userClaim` of the token and its groups the `groupsClaim`. Opaque tokens are introspected with the
/// `introspection` client's credentials. Static `clientTokens` keep working beside it.
package struct ResourceAuthSettings: Sendable, Hashable {
    package var issuer: String
    /// The gateway's canonical resource URI (RFC 8707), e.g. `https://gateway.example/mcp`. Each endpoint's
    /// own resource is its scheme and authority with the endpoint's path; a token for either is accepted.
    package var audience: String
    /// Scopes every token must carry (and the 401's `scope`); empty: none asked.
    package var scopes: [String]
    package var userClaim: String
    package var groupsClaim: String
    /// The client the gateway introspects opaque tokens as; `nil`: only JWTs are accepted.
    package var introspectionClientID: String?
    package var introspectionClientSecret: String?

    package init(
        issuer: String,
        audience: String,
        scopes: [String] = [],
        userClaim: String = "sub",
        groupsClaim: String = "groups",
        introspectionClientID: String? = nil,
        introspectionClientSecret: String? = nil
    ) {
        self.issuer = issuer
        self.audience = audience
        self.scopes = scopes
        self.userClaim = userClaim
        self.groupsClaim = groupsClaim
        self.introspectionClientID = introspectionClientID
        self.introspectionClientSecret = introspectionClientSecret
    }

    /// `audience`'s scheme and authority (`https://gateway.example`), which every endpoint's resource URI
    /// starts with.
    package var origin: String {
        guard let scheme = audience.firstRange(of: "://") else { return audience }
        let rest = audience[scheme.upperBound...]
        return String(audience[..<(rest.firstIndex(of: "/") ?? rest.endIndex)])
    }

    /// The resource URI of the endpoint at `path` (`/mcp/ops`): what its metadata names and a token may be for.
    package func resource(forPath path: String) -> String { origin + path }
}
