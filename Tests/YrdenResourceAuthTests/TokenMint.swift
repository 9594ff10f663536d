import Crypto
import Synchronization
import YrdenProtocol
import _CryptoExtras

@testable import YrdenResourceAuth

/// An issuer for the tests: RSA and P-256 keys, tokens signed with them (or not), its JWKS and metadata, and
/// its HTTP, counting what the verifier fetches.
final class TokenMint: Sendable {
    static let issuer = "https://idp.test"
    static let audience = "https://gateway.test/mcp"
    let rsa = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    let ec = P256.Signing.PrivateKey()
    /// A key the issuer publishes only once ``rotate()`` ran, as `rsa-2`.
    let next = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    private let rotated = Mutex(false)
    let fetches = Counter()

    /// The issuer adds `rsa-2` to its key set.
    func rotate() { rotated.withLock { $0 = true } }

    /// A key the issuer does not publish.
    static func strangerKey() -> _RSA.Signing.PrivateKey { try! _RSA.Signing.PrivateKey(keySize: .bits2048) }

    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Base64.encode(Array(bytes), urlSafe: true).replacing("=", with: "")
    }

    static func part(_ json: JSONValue) -> String { base64URL(json.serialized()) }

    /// Claims good at `now`, for `audience`, merged with `extra` (a `.null` removes a claim).
    static func claims(now: Double, _ extra: JSONObject = [:]) -> JSONObject {
        var claims: JSONObject = [
            "iss": .string(issuer), "aud": .string(audience), "sub": "alice", "exp": .double(now + 300),
            "iat": .double(now), "scope": "mcp:tools", "groups": ["ops"],
        ]
        for (key, value) in extra { claims[key] = value == .null ? nil : value }
        return claims
    }

    func rs256(_ claims: JSONObject, kid: String = "rsa-1", key: _RSA.Signing.PrivateKey? = nil) -> String {
        let input = Self.part(["alg": "RS256", "typ": "JWT", "kid": .string(kid)]) + "." + Self.part(.object(claims))
        let signature = try! (key ?? rsa).signature(
            for: SHA256.hash(data: Array(input.utf8)),
            padding: .insecurePKCS1v1_5
        )
        return input + "." + Self.base64URL(signature.rawRepresentation)
    }

    func es256(_ claims: JSONObject) -> String {
        let input = Self.part(["alg": "ES256", "kid": "ec-1"]) + "." + Self.part(.object(claims))
        let signature = try! ec.signature(for: SHA256.hash(data: Array(input.utf8)))
        return input + "." + Self.base64URL(signature.rawRepresentation)
    }

    /// A token with `alg` in its header and whatever signature bytes.
    static func unsigned(_ claims: JSONObject, alg: String, signature: String = "") -> String {
        part(["alg": .string(alg), "kid": "rsa-1"]) + "." + part(.object(claims)) + "." + signature
    }

    static func jwk(_ key: _RSA.Signing.PrivateKey, kid: String) -> JSONValue {
        let primitives = try! key.publicKey.getKeyPrimitives()
        return [
            "kty": "RSA", "kid": .string(kid), "use": "sig", "alg": "RS256",
            "n": .string(base64URL(primitives.modulus)), "e": .string(base64URL(primitives.publicExponent)),
        ]
    }

    var keySet: JSONValue {
        let ecRaw = Array(ec.publicKey.rawRepresentation)
        let extra = rotated.withLock { $0 } ? [Self.jwk(next, kid: "rsa-2")] : []
        return [
            "keys": .array(
                [
                    Self.jwk(rsa, kid: "rsa-1"),
                    [
                        "kty": "EC", "kid": "ec-1", "crv": "P-256",
                        "x": .string(Self.base64URL(ecRaw.prefix(32))), "y": .string(Self.base64URL(ecRaw.suffix(32))),
                    ],
                ] + extra
            )
        ]
    }

    /// The issuer's HTTP: RFC 8414 metadata, the key set, and an introspection endpoint that knows `opaque`.
    func http(opaque: [String: JSONValue] = [:]) -> IssuerHTTP {
        IssuerHTTP { request in
            self.fetches.add(request.url)
            switch request.url {
            case "https://idp.test/.well-known/oauth-authorization-server":
                let metadata: JSONValue = [
                    "issuer": .string(Self.issuer), "jwks_uri": "https://idp.test/jwks",
                    "introspection_endpoint": "https://idp.test/introspect",
                ]
                return (200, metadata.serialized())
            case "https://idp.test/jwks":
                return (200, self.keySet.serialized())
            case "https://idp.test/introspect":
                let token = request.form?.first { $0.0 == "token" }?.1 ?? ""
                return (200, (opaque[token] ?? ["active": false]).serialized())
            default:
                return (404, [])
            }
        }
    }
}

/// What was fetched, in order.
final class Counter: Sendable {
    private let urls = Mutex<[String]>([])
    func add(_ url: String) { urls.withLock { $0.append(url) } }
    func count(_ url: String) -> Int { urls.withLock { $0.filter { $0 == url }.count } }
}
