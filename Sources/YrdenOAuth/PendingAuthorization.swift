/// One sign-in waiting for the browser to come back, registered under its `state` before its URL is shown.
package struct PendingAuthorization: Sendable {
    var serverID: String
    var state: String
    /// The issuer whose authorization endpoint the user was sent to; a response's `iss` must equal it.
    var issuer: String
    /// The authorization server promised `iss` in every response (RFC 9207), so its absence is an attack.
    var issuerRequired: Bool
    /// Seconds since the epoch after which the flow is dropped.
    var expiresAt: Double
    /// Exchanges the code and says how the sign-in ended; called at most once, with the flow removed.
    var redeem: @Sendable (_ code: String) async -> OAuthCallbackResult
    /// Ends the flow without a code (the server's error, a failed check, expiry, a newer flow); called at most
    /// once, and never together with `redeem`.
    var abandon: @Sendable (_ reason: String) async -> Void
}
