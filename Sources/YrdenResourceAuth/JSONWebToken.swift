import YrdenProtocol

/// A JWT in compact JWS form (RFC 7515, 7519), split and decoded but not yet trusted: its header, its claims,
/// the bytes that were signed and the signature. Nothing here says the token is good; ``JSONWebKeySet`` checks
/// the signature and ``AccessTokenRules`` the claims.
struct JSONWebToken: Sendable {
    let algorithm: String
    let keyID: String?
    let claims: JSONObject
    /// `<header>.<payload>` as sent: what the signature covers.
    let signingInput: [UInt8]
    let signature: [UInt8]

    /// Tokens longer than this are refused unread: no issuer's access token comes near it.
    static let maxLength = 16 * 1024

    /// Whether `token` has the shape of a compact JWS (three base64url parts); an opaque token has not.
    static func looksLikeJWT(_ token: String) -> Bool {
        token.utf8.count(where: { $0 == UInt8(ascii: ".") }) == 2
    }

    init(_ token: String) throws(TokenRejection) {
        guard token.utf8.count <= Self.maxLength else { throw .malformed("longer than \(Self.maxLength) bytes") }
        // Split on the UTF-8 bytes: splitting the `String` walks a kilobyte token character by character.
        let utf8 = token.utf8
        let dot = UInt8(ascii: ".")
        guard let first = utf8.firstIndex(of: dot), let second = utf8[utf8.index(after: first)...].firstIndex(of: dot),
            !utf8[utf8.index(after: second)...].contains(dot)
        else { throw .malformed("not three parts") }
        let parts = [token[..<first], token[utf8.index(after: first)..<second], token[utf8.index(after: second)...]]
        guard let headerBytes = Base64.decode(url: parts[0]), let header = Self.object(headerBytes) else {
            throw .malformed("the header is not base64url JSON")
        }
        guard let payloadBytes = Base64.decode(url: parts[1]), let claims = Self.object(payloadBytes) else {
            throw .malformed("the payload is not base64url JSON")
        }
        guard let signature = Base64.decode(url: parts[2]) else { throw .malformed("the signature is not base64url") }
        guard let algorithm = header["alg"]?.stringValue else { throw .malformed("the header has no alg") }
        // A critical extension the gateway does not know must be understood to accept the token (RFC 7515 §4.1.11).
        if header["crit"] != nil { throw .malformed("the header has critical extensions") }
        self.algorithm = algorithm
        keyID = header["kid"]?.stringValue
        self.claims = claims
        signingInput = Array(utf8[..<second])
        self.signature = signature
    }

    private static func object(_ bytes: [UInt8]) -> JSONObject? {
        (try? JSONValue.parse(bytes))?.objectValue
    }
}
