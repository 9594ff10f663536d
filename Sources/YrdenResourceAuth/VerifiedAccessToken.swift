/// What an accepted access token says: whose it is, the groups and scopes it carries, and until when.
package struct VerifiedAccessToken: Sendable, Hashable {
    package let user: String
    /// Its `aud`; empty only for an introspection answer that named none.
    package let audiences: [String]
    package let groups: [String]
    package let scopes: Set<String>
    /// Seconds since 1970 (`exp`); the token, and any cached verdict of it, is good until then.
    package let expiresAt: Double

    package init(user: String, audiences: [String], groups: [String], scopes: Set<String>, expiresAt: Double) {
        self.user = user
        self.audiences = audiences
        self.groups = groups
        self.scopes = scopes
        self.expiresAt = expiresAt
    }

    /// Whether the token was issued for `resource` or `other` (an introspection answer without `aud` is for the
    /// issuer to judge, and was). Two strings, not a set: this runs on every request.
    package func isFor(_ resource: String, or other: String) -> Bool {
        audiences.isEmpty || audiences.contains { $0 == resource || $0 == other }
    }
}
