import Crypto
import Synchronization

/// The SHA-256 of a token: what the verifier keys refusals and checks in flight by, so a token it only saw
/// refused is not kept in memory.
struct TokenDigest: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ token: String) { bytes = Array(SHA256.hash(data: Array(token.utf8))) }
}

/// Tokens refused lately, each for ``lifetime`` seconds: a client (or an attacker) presenting the same bad token
/// again gets the same refusal for a dictionary lookup, not another signature check or introspection.
///
/// Bounded without a scan: refusals go into the current generation, which becomes the previous one (and the
/// previous one is dropped) once it holds `limit / 2`; so at most `limit` are kept, and a flood of distinct bad
/// tokens costs each request the same constant work.
final class RejectionCache: Sendable {
    private struct Entry {
        let rejection: TokenRejection
        let until: Double
    }

    private struct Generations {
        var current: [TokenDigest: Entry] = [:]
        var previous: [TokenDigest: Entry] = [:]
    }

    let limit: Int
    let lifetime: Double
    private let generations = Mutex(Generations())

    init(limit: Int, lifetime: Double) {
        self.limit = max(2, limit)
        self.lifetime = lifetime
    }

    var count: Int { generations.withLock { $0.current.count + $0.previous.count } }

    /// Whether `rejection` may be remembered: only what the token itself decides. An unknown key may be published
    /// a moment later (a rotation, found by the rate-limited re-fetch), and an unreachable or busy issuer is not
    /// the token's fault.
    static func isLasting(_ rejection: TokenRejection) -> Bool {
        switch rejection {
        case .unknownKey, .issuerUnavailable, .busy: false
        default: true
        }
    }

    func lookup(_ digest: TokenDigest, now: Double) -> TokenRejection? {
        generations.withLock { generations in
            guard let entry = generations.current[digest] ?? generations.previous[digest], now < entry.until else {
                return nil
            }
            return entry.rejection
        }
    }

    func store(_ digest: TokenDigest, _ rejection: TokenRejection, now: Double) {
        guard Self.isLasting(rejection) else { return }
        let entry = Entry(rejection: rejection, until: now + lifetime)
        // The generation dropped is freed after the lock, not under it.
        let dropped = generations.withLock { generations -> [TokenDigest: Entry] in
            var dropped: [TokenDigest: Entry] = [:]
            if generations.current.count >= limit / 2 {
                dropped = generations.previous
                generations.previous = generations.current
                generations.current = [:]
            }
            generations.current[digest] = entry
            return dropped
        }
        _ = dropped
    }
}
