import YrdenProtocol

/// Who a client is, for the bounds one client must not exhaust for the others (its sessions, its parked
/// calls): the credential it sent (as a digest, never the token itself), else its network address.
///
/// Clients behind one address without a credential are one client here: that is all the gateway can tell.
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

    /// `credential <first 64 bits of its SHA-256>` or `address <ip>`: safe to log.
    package var description: String { value }
}
