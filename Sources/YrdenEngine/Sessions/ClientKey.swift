import YrdenProtocol

/// Who a client is, for the bounds one client must not exhaust for the others (its sessions, its parked
/// calls): the principal its credential proves (a user of `gateway.auth`, a client token's holder), else the
/// credential it sent (as a digest, never the token itself), else its network address.
///
/// Keyed by the principal, not the token, where a token proves one: a host that refreshes its access token
/// mid-conversation is still the same client, so its sessions are not counted twice. Clients behind one
/// address without a credential are one client here: that is all the gateway can tell.
package struct ClientKey: Sendable, Hashable, CustomStringConvertible {
    private let value: String

    /// The client of a request with `authorization` (its `Authorization` header) from `address`; `nil` when
    /// neither is known (a stdio client, which is the only one of its connection).
    package init?(authorization: String?, address: String?) {
        if let authorization, !authorization.isEmpty {
            value = "credential " + RequestStateSeal.digest(credential: authorization).prefix(16)
        } else if let address {
            value = "address " + address
        } else {
            return nil
        }
    }

    /// The client of a request `caller` sent with `authorization` from `address`: the caller's principal when
    /// a token proved it (``Caller/provenPrincipal``), else as ``init(authorization:address:)``.
    package init?(caller: Caller, authorization: String?, address: String?) {
        if let principal = caller.provenPrincipal {
            self.init(value: "principal " + RequestStateSeal.digest(credential: principal).prefix(16))
        } else {
            self.init(authorization: authorization, address: address)
        }
    }

    private init(value: String) { self.value = value }

    /// `principal <first 64 bits of its SHA-256>`, `credential <the same of the credential>` or `address <ip>`:
    /// safe to log.
    package var description: String { value }
}

extension Caller {
    /// How the caller was proved and who it is, for binding what it is given (its parked calls' tokens, its
    /// bounds) to it rather than to the token it presented; `nil` when nothing proved it (an open gateway's
    /// caller, `yrden stdio`), whose credential or address is all there is.
    ///
    /// The same across a renewal of the user's access token; never the same for two users, nor for a static
    /// token's holder and an identity provider's user of the same name.
    package var provenPrincipal: String? {
        switch authentication {
        case .accessToken, .clientToken, .adminToken: authentication.rawValue + " " + user
        case .none, .local: nil
        }
    }
}
