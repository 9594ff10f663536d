/// Where one server's OAuth stands, as the admin API's `AuthProgress` shows it.
package enum OAuthProgress: Sendable, Hashable {
    /// Finding the authorization server (protected-resource and authorization-server metadata).
    case discovering
    /// Registering the gateway as a client (dynamic client registration).
    case registering
    /// The user must open `authorizationURL` before `expiresAt` (seconds since the epoch).
    case waitingForUser(authorizationURL: String, expiresAt: Double)
    /// The browser came back; the code is being exchanged for tokens.
    case exchangingCode
    /// The gateway holds tokens for the server.
    case complete
    /// The sign-in failed; a new one is needed.
    case failed(reason: String)
    /// There are no usable tokens (never signed in, signed out, refused and not refreshable, or a wider
    /// scope is needed); a sign-in is needed.
    case needsReauth(reason: String)

    /// The `status` of the admin API's `AuthProgress`.
    package var status: String {
        switch self {
        case .discovering: "discovering"
        case .registering: "registering"
        case .waitingForUser: "waitingForUser"
        case .exchangingCode: "exchangingCode"
        case .complete: "complete"
        case .failed: "failed"
        case .needsReauth: "needsReauth"
        }
    }

    /// The reason of `failed` and `needsReauth`.
    package var reason: String? {
        switch self {
        case .failed(let reason), .needsReauth(let reason): reason
        default: nil
        }
    }

    /// A sign-in is under way (from discovery until the code is exchanged).
    package var isSigningIn: Bool {
        switch self {
        case .discovering, .registering, .waitingForUser, .exchangingCode: true
        default: false
        }
    }
}
