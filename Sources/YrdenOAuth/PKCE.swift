import Crypto
import YrdenProtocol

/// A PKCE pair (RFC 7636) with the `S256` method, the only one the MCP spec allows when the server offers it.
struct PKCE: Sendable, Hashable {
    static let method = "S256"

    /// 43 to 128 characters of `[A-Za-z0-9-._~]`; kept secret until the token request.
    let verifier: String

    /// A fresh pair: 32 random bytes, base64url-encoded to a 43-character verifier (RFC 7636 §4.1).
    init() {
        verifier = SecureRandom.token()
    }

    /// A pair for a known verifier (tests).
    init(verifier: String) {
        self.verifier = verifier
    }

    /// `BASE64URL(SHA256(ASCII(verifier)))`, what the authorization request carries.
    var challenge: String { Self.challenge(for: verifier) }

    static func challenge(for verifier: String) -> String {
        Base64.encode(Array(SHA256.hash(data: Array(verifier.utf8))), urlSafe: true)
    }
}
