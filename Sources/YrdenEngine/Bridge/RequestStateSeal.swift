import Crypto
import FoundationEssentials
import YrdenProtocol

/// What a gateway-minted `requestState` binds: the parked call it resumes, and everything the retry must
/// match for it to be accepted (2026-07-28 asks the token be treated as attacker-controlled input).
struct ParkClaims: Sendable, Hashable, Codable {
    /// The parked call's id in ``ParkedCalls``.
    var park: String
    var method: String
    /// The catalog the call was made in (``CatalogScope/claim``): a public name means another tool on another
    /// endpoint, and a profile's tokens are not the aggregate's.
    var scope: String
    /// The public tool or prompt name, or the resource URI.
    var name: String
    /// SHA-256 of the arguments in canonical JSON, hex.
    var arguments: String
    /// SHA-256 of the caller's principal when a token proved it (``Caller/provenPrincipal``: a user's renewed
    /// token retries the call), else of its credential (its `Authorization`), hex; of nothing without one.
    var principal: String
    /// When the token stops being accepted, in seconds since 1970.
    var expires: Int
    /// The base URL of the replica that holds the parked call, where another replica hands the retry; `nil`
    /// for a gateway that is not one of several (or does not know how the others reach it).
    var replica: String?
}

/// Seals and opens the gateway's `requestState` tokens: AES-256-GCM under a key made at start, so a token
/// cannot be forged, read or altered, and none outlives the process (nor do the calls it names).
struct RequestStateSeal: Sendable {
    private let key: SymmetricKey

    /// Every gateway token starts with this; a `requestState` without it is an upstream's own.
    static let prefix = "yrden1."

    init(key: SymmetricKey = SymmetricKey(size: .bits256)) {
        self.key = key
    }

    func seal(_ claims: ParkClaims) -> String {
        // Encoding a struct of strings and an integer cannot fail, nor can sealing with a valid key.
        let plain = (try? JSONEncoder().encode(claims)) ?? Data()
        let combined = (try? AES.GCM.seal(plain, using: key).combined) ?? Data()
        return Self.prefix + Base64.encode(combined, urlSafe: true)
    }

    /// The claims of a token this gateway sealed; `nil` for anything else (forged, altered, truncated).
    func open(_ token: String) -> ParkClaims? {
        guard token.hasPrefix(Self.prefix),
            let bytes = Self.decodeURLSafe(String(token.dropFirst(Self.prefix.count))),
            let box = try? AES.GCM.SealedBox(combined: Data(bytes)),
            let plain = try? AES.GCM.open(box, using: key)
        else { return nil }
        return try? JSONDecoder().decode(ParkClaims.self, from: plain)
    }

    private static func decodeURLSafe(_ text: String) -> [UInt8]? {
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Base64.decode(standard)
    }

    /// SHA-256 of `value` in canonical JSON (keys sorted at every level), hex: equal arguments give equal
    /// digests whatever order a client writes them in.
    static func digest(_ value: JSONValue?) -> String {
        CanonicalJSON.sha256(value ?? .null)
    }

    /// SHA-256 of a credential, hex.
    static func digest(credential: String?) -> String {
        CanonicalJSON.sha256(bytes: Array((credential ?? "").utf8))
    }
}
