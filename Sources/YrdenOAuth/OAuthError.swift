/// Why an OAuth step failed, said so that the person reading it can act on it.
///
/// Messages name the URL or server involved and what the authorization server answered; they never carry a
/// token, a code, a client secret or a verifier. `kind` lets callers tell cases apart without parsing text:
/// `refused` and `needsSignIn` mean a new sign-in is the way out, `network` that a later retry may succeed.
package struct OAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable, Hashable {
        /// The protected-resource or authorization-server metadata is missing or unusable.
        case discovery
        /// The gateway could not register as a client.
        case registration
        /// The authorization server answered the browser step with an error, or the answer failed a check.
        case authorization
        /// The token endpoint refused a code or refresh token (`invalid_grant`, `invalid_client`, …).
        case refused
        /// An HTTP request got no answer, a 5xx, or an answer that cannot be read.
        case network
        /// A URL that OAuth would use is not https (or http to a loopback host or the server's own host).
        case insecureURL
        /// There are no usable tokens: a sign-in is needed.
        case needsSignIn
        /// Tokens or a registration could not be read or written.
        case storage
        /// A newer sign-in, or a sign-out, replaced the operation.
        case cancelled
        /// A token was asked for a URL on another origin than the server it was issued for.
        case wrongHost
    }

    package var kind: Kind
    package var message: String
    /// The authorization server's `error` code (`invalid_grant`, `invalid_client`, …) when it sent one.
    package var serverCode: String?

    package init(_ kind: Kind, _ message: String, serverCode: String? = nil) {
        self.kind = kind
        self.message = message
        self.serverCode = serverCode
    }

    package var description: String { message }
}
