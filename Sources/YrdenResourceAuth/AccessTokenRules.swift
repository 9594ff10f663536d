import YrdenProtocol

/// What the gateway asks of an access token's claims, whether they came in a JWT or from introspection: its
/// issuer, an audience that is this gateway, a lifetime that includes now (give or take `skew` for clocks that
/// disagree), and a user.
package struct AccessTokenRules: Sendable, Hashable {
    package let issuer: String
    /// The claim that names the user (`sub` unless the config names another) and the one listing its groups.
    package let userClaim: String
    package let groupsClaim: String
    /// The algorithms a JWT may be signed with (RS256, ES256 by default; never `none` or HS*).
    package let algorithms: Set<String>
    /// How far the gateway's clock and the issuer's may disagree, in seconds.
    package let skew: Double

    package init(
        issuer: String,
        userClaim: String = "sub",
        groupsClaim: String = "groups",
        algorithms: Set<String> = JSONWebKeySet.supportedAlgorithms,
        skew: Double = 60
    ) {
        self.issuer = issuer
        self.userClaim = userClaim
        self.groupsClaim = groupsClaim
        self.algorithms = algorithms.intersection(JSONWebKeySet.supportedAlgorithms)
        self.skew = skew
    }

    /// `claims` checked at `now` (seconds since 1970); `requireExpiry` for a JWT, which must say when it ends and
    /// for whom (an introspection answer may not, and is then cached only briefly). Which audience the request
    /// needs is checked per request (``VerifiedAccessToken/isFor(any:)``), since a verdict is cached per token.
    func check(_ claims: JSONObject, now: Double, requireExpiry: Bool) throws(TokenRejection) -> VerifiedAccessToken {
        if let issued = claims["iss"]?.stringValue {
            guard issued == issuer else { throw .wrongIssuer }
        } else if requireExpiry {
            throw .wrongIssuer  // a JWT says who issued it
        }
        let audience: [String] =
            claims["aud"]?.stringValue.map { [$0] } ?? claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if requireExpiry, audience.isEmpty { throw .wrongAudience }
        let expiry = claims["exp"]?.doubleValue
        if let expiry {
            guard now < expiry + skew else { throw .expired }
        } else if requireExpiry {
            throw .malformed("the token has no exp")
        }
        if let notBefore = claims["nbf"]?.doubleValue, now + skew < notBefore { throw .notYetValid }
        guard let user = claims[userClaim]?.stringValue, !user.isEmpty else { throw .noUser }
        return VerifiedAccessToken(
            user: user,
            audiences: audience,
            groups: Self.strings(claims[groupsClaim]),
            scopes: Set(
                claims["scope"]?.stringValue.map { $0.split(separator: " ").map(String.init) }
                    ?? Self.strings(claims["scp"])
            ),
            expiresAt: expiry ?? now + Self.unboundedAnswerLifetime
        )
    }

    /// How long an introspection answer without `exp` is trusted before it is asked again.
    static let unboundedAnswerLifetime: Double = 60

    /// A claim's strings: an array's (others skipped), or a lone string; at most 256 kept.
    private static func strings(_ value: JSONValue?) -> [String] {
        if let one = value?.stringValue { return [one] }
        return Array((value?.arrayValue ?? []).compactMap(\.stringValue).prefix(256))
    }
}
