import Synchronization

/// Verdicts by token, each until its token's expiry; at most `limit`.
///
/// Bounded without a scan, as ``RejectionCache`` is: verdicts go into the current generation, which becomes the
/// previous one (the previous one dropped) once it holds `limit / 2`, and a verdict found in the previous one
/// moves back to the current, so tokens in use stay while those no longer presented age out. A full cache used
/// to be filtered whole, under the lock every request's lookup takes, on every other store: with more tokens
/// in use than the limit, each new one held the event loop's lookups for the length of a 10,000-entry copy. A
/// verdict dropped early only costs a verification again.
final class VerdictCache: Sendable {
    private struct Generations {
        var current: [String: VerifiedAccessToken] = [:]
        var previous: [String: VerifiedAccessToken] = [:]
    }

    let limit: Int
    private let generations = Mutex(Generations())

    init(limit: Int) { self.limit = max(2, limit) }

    var count: Int { generations.withLock { $0.current.count + $0.previous.count } }

    func lookup(_ token: String, now: Double, skew: Double) -> VerifiedAccessToken? {
        generations.withLock { generations in
            if let verdict = generations.current[token] {
                guard now < verdict.expiresAt + skew else {
                    generations.current[token] = nil
                    return nil
                }
                return verdict
            }
            guard let verdict = generations.previous.removeValue(forKey: token), now < verdict.expiresAt + skew else {
                return nil
            }
            generations.current[token] = verdict
            return verdict
        }
    }

    func store(_ token: String, _ verdict: VerifiedAccessToken, now: Double) {
        // The generation dropped is freed after the lock, not under it.
        let dropped = generations.withLock { generations -> [String: VerifiedAccessToken] in
            var dropped: [String: VerifiedAccessToken] = [:]
            if generations.current.count >= limit / 2, generations.current[token] == nil {
                dropped = generations.previous
                generations.previous = generations.current
                generations.current = [:]
            }
            generations.previous[token] = nil
            generations.current[token] = verdict
            return dropped
        }
        _ = dropped
    }
}
