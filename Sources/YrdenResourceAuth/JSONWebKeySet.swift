import Crypto
import YrdenProtocol
import _CryptoExtras

/// The issuer's signing keys (its `jwks_uri` document, RFC 7517), ready to verify: RSA keys for RS256 and P-256
/// keys for ES256. Keys of other types, for encryption (`use: enc`) or too small (RSA under 2,048 bits) are left
/// out, so a token signed with one is refused as signed with an unknown key.
struct JSONWebKeySet: Sendable {
    enum Key: Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
    }

    /// Keys by `kid`; a key without one is kept under `""`.
    let keys: [String: Key]

    /// The algorithms a token may be signed with: asymmetric only. `none` and HS256 (whose "key" a verifier
    /// would have to share with the issuer) never are.
    static let supportedAlgorithms: Set<String> = ["RS256", "ES256"]

    init(keys: [String: Key] = [:]) { self.keys = keys }

    /// The usable keys of a JWKS document; `nil` when it is not one.
    init?(json: JSONValue) {
        guard let entries = json["keys"]?.arrayValue else { return nil }
        var keys: [String: Key] = [:]
        for entry in entries {
            guard entry["use"]?.stringValue ?? "sig" == "sig", let key = Self.key(entry) else { continue }
            keys[entry["kid"]?.stringValue ?? ""] = key
        }
        self.keys = keys
    }

    private static func key(_ entry: JSONValue) -> Key? {
        switch entry["kty"]?.stringValue {
        case "RSA":
            guard let n = entry["n"]?.stringValue.flatMap({ Base64.decode(url: $0[...]) }),
                let e = entry["e"]?.stringValue.flatMap({ Base64.decode(url: $0[...]) }),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e), key.keySizeInBits >= 2048
            else { return nil }
            return .rsa(key)
        case "EC":
            guard entry["crv"]?.stringValue == "P-256",
                let x = entry["x"]?.stringValue.flatMap({ Base64.decode(url: $0[...]) }),
                let y = entry["y"]?.stringValue.flatMap({ Base64.decode(url: $0[...]) }), x.count == 32, y.count == 32,
                let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { return nil }
            return .p256(key)
        default:
            return nil
        }
    }

    /// The key `token` names: by `kid`, or the only key of its kind when it names none.
    func key(for token: JSONWebToken) -> Key? {
        if let id = token.keyID { return keys[id] }
        let candidates = keys.values.filter { Self.matches($0, token.algorithm) }
        return candidates.count == 1 ? candidates.first : nil
    }

    /// Checks `token`'s signature with `key`; its algorithm must be allowed and fit the key's type.
    static func verify(_ token: JSONWebToken, with key: Key, allowed: Set<String>) throws(TokenRejection) {
        guard allowed.contains(token.algorithm), supportedAlgorithms.contains(token.algorithm) else {
            throw .algorithmNotAllowed(token.algorithm.isEmpty ? "(empty)" : String(token.algorithm.prefix(16)))
        }
        let digest = SHA256.hash(data: token.signingInput)
        switch (key, token.algorithm) {
        case (.rsa(let key), "RS256"):
            let signature = _RSA.Signing.RSASignature(rawRepresentation: token.signature)
            guard key.isValidSignature(signature, for: digest, padding: .insecurePKCS1v1_5) else { throw .badSignature }
        case (.p256(let key), "ES256"):
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: token.signature),
                key.isValidSignature(signature, for: digest)
            else { throw .badSignature }
        default:
            throw .badSignature
        }
    }

    private static func matches(_ key: Key, _ algorithm: String) -> Bool {
        switch key {
        case .rsa: algorithm == "RS256"
        case .p256: algorithm == "ES256"
        }
    }
}
