/// Supplies the credentials of a remote upstream that signs in (OAuth) and hears when the server refused them.
///
/// The transport asks before every request, so a refreshed token is used from the next request on, and the
/// credential is sent only to the upstream's own URL. A static `Authorization` header from the config needs
/// none of this: it travels with the endpoint's headers.
package protocol UpstreamAuthorizer: Sendable {
    /// The `Authorization` header value for the next request (`Bearer …`). Throws an `.auth` error when there
    /// is no usable credential, so the request fails at once with the reason (sign-in needed).
    func authorization() async throws(UpstreamError) -> String

    /// The server answered `status` (401, or 403 for too narrow a scope) to a request sent with `used`;
    /// `challenge` is its `WWW-Authenticate`. True when another credential is now available (refreshed), so
    /// the request is sent once more; false when the operator has to act (sign in again).
    func rejected(_ used: String, status: Int, challenge: String?) async -> Bool
}
