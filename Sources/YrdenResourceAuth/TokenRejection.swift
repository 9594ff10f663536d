/// Why an access token was not accepted. Its message is for the gateway's log and the `error_description` of
/// a 401: it names the rule broken, never the token or its claims' values.
package enum TokenRejection: Error, Sendable, Equatable {
    /// Not a JWT the gateway reads, or a JWT with a broken part.
    case malformed(String)
    /// An algorithm outside the allow-list (`none` and the HMAC ones always are).
    case algorithmNotAllowed(String)
    /// No key of the issuer's key set has the token's `kid` (after a re-fetch, when one was allowed).
    case unknownKey
    case badSignature
    case wrongIssuer
    case wrongAudience
    case expired
    /// `nbf` is still ahead.
    case notYetValid
    /// The claim that names the user is missing or not a string.
    case noUser
    /// Introspection says the token is not active.
    case inactive
    /// The issuer's metadata, key set or introspection endpoint could not be reached or read: not the token's
    /// fault, and not cached.
    case issuerUnavailable(String)
    /// The token was not checked: as many checks as the gateway runs at once are running (a 503 with
    /// `Retry-After`, not cached).
    case busy(String)

    package var message: String {
        switch self {
        case .malformed(let why): "the token is malformed: \(why)"
        case .algorithmNotAllowed(let algorithm): "the token's algorithm \(algorithm) is not accepted"
        case .unknownKey: "the token is signed with a key the issuer does not publish"
        case .badSignature: "the token's signature does not verify"
        case .wrongIssuer: "the token was issued by another issuer"
        case .wrongAudience: "the token is for another audience (resource)"
        case .expired: "the token has expired"
        case .notYetValid: "the token is not valid yet"
        case .noUser: "the token names no user"
        case .inactive: "the token is not active"
        case .issuerUnavailable(let why): "the token's issuer could not be asked: \(why)"
        case .busy(let why): "the token could not be checked now: \(why)"
        }
    }
}
