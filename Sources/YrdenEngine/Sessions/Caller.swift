import Crypto

/// Who sent a request: the user the gateway acts for, beside ``ClientKey`` (which only bounds what one
/// client may hold). Made by the front from the request's credential (a client token, an OAuth access token),
/// kept by the session it opens and carried to every call forwarded upstream, so that per-user grants,
/// credentials, quotas and the audit know whose call it is.
///
/// Its description, like its ``user``, is safe to log; the bearer token is kept only for what must present it
/// again (a token exchange, a forward the config asks for) and is never shown.
package struct Caller: Sendable, Hashable, CustomStringConvertible {
    /// How the caller proved who it is; two callers are the same principal only when this and ``user`` agree,
    /// so a static token's name can never pass for an identity provider's user of the same name.
    package enum Authentication: String, Sendable, Hashable {
        /// Nothing was asked: an open gateway (no `clientTokens`, no `auth`).
        case none
        /// The process's own client: `yrden stdio`, whose user is whoever started it.
        case local
        /// One of `gateway.clientTokens` or a profile's.
        case clientToken
        /// `gateway.adminToken`, accepted on the MCP endpoints too.
        case adminToken
        /// An access token of the configured issuer (`gateway.auth`): a JWT or an introspected opaque token.
        case accessToken
    }

    /// The user's stable name: the token's `sub` (or the configured claim), `token:<8 hex>` for a static
    /// client token, `admin`, `local` or `anonymous`.
    package let user: String
    /// The groups the identity provider says the user is in (the configured claim); empty otherwise.
    package let groups: [String]
    package let authentication: Authentication
    /// The bearer token as presented, for token exchange or an explicit forward only.
    package let token: CallerToken?

    package init(user: String, groups: [String] = [], authentication: Authentication, token: CallerToken? = nil) {
        self.user = user
        self.groups = groups
        self.authentication = authentication
        self.token = token
    }

    /// A caller of an open gateway: nothing was presented, or nothing was asked.
    package static let anonymous = Caller(user: "anonymous", authentication: .none)

    /// The one client of a stdio connection.
    package static let local = Caller(user: "local", authentication: .local)

    /// The holder of `gateway.adminToken`.
    package static func admin(token: String) -> Caller {
        Caller(user: "admin", authentication: .adminToken, token: CallerToken(token))
    }

    /// The holder of a static client token, named by its digest's first 32 bits: stable across restarts, the
    /// same for every replica, and saying nothing of the token.
    package static func clientToken(_ token: String) -> Caller {
        Caller(user: "token:" + tokenName(token), authentication: .clientToken, token: CallerToken(token))
    }

    /// `token`'s SHA-256, its first 8 hex digits.
    package static func tokenName(_ token: String) -> String {
        let digest = SHA256.hash(data: Array(token.utf8))
        return digest.prefix(4).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Whether `other` is the same principal (a session's owner and a later request on it): same user, proved
    /// the same way. A token renewed for the same user is the same principal; groups may change meanwhile.
    package func isSamePrincipal(as other: Caller) -> Bool {
        authentication == other.authentication && user == other.user
    }

    /// `user` and how it was proved; never the token.
    package var description: String {
        authentication == .accessToken || authentication == .clientToken
            ? "\(user) (\(authentication.rawValue))" : user
    }
}

/// A caller's bearer token, kept out of every description, dump and log line.
package struct CallerToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The token itself, to present again upstream.
    package let value: String

    package init(_ value: String) { self.value = value }

    package var description: String { "<bearer token>" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: []) }
}
