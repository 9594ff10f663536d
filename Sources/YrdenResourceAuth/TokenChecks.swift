import Synchronization

/// The checks of tokens the verifier has no verdict for, running now: one per token however many requests
/// present it at once (they all wait on it), each off the event loop, and at most so many at a time.
///
/// Without it, every request with a token not seen before checked it on the thread that serves every
/// connection (an RS256 verify is tens of µs: a flood of distinct badly signed tokens made the loop do one per
/// request), and every request with an opaque token not seen before sent an introspection of its own: ten
/// requests of one client starting together were ten calls to the issuer, and distinct made-up tokens had no
/// bound at all. Past a bound the token is not checked (``TokenRejection/busy``, a 503 with `Retry-After`),
/// never queued.
final class TokenChecks: Sendable {
    typealias Check = Task<Result<VerifiedAccessToken, TokenRejection>, Never>

    enum Kind: Sendable {
        /// A JWT: parsed, its key looked up, its signature verified (CPU, and a key-set fetch at most every 10 s).
        case signature
        /// An opaque token: one RFC 7662 request to the issuer.
        case introspection
    }

    private struct Running {
        var checks: [TokenDigest: Check] = [:]
        var signatures = 0
        var introspections = 0
    }

    /// At most this many JWTs checked at once.
    let maxSignatures: Int
    /// At most this many introspections in flight at once.
    let maxIntrospections: Int
    private let running = Mutex(Running())

    init(maxSignatures: Int, maxIntrospections: Int) {
        self.maxSignatures = max(1, maxSignatures)
        self.maxIntrospections = max(1, maxIntrospections)
    }

    /// Checks in flight now, for tests.
    var inFlight: Int { running.withLock { $0.checks.count } }

    /// The outcome of the check of the token of `digest`: the one running, joined, or `work` started now on
    /// the global executor; ``TokenRejection/busy`` when that would pass the bound of its kind.
    func outcome(
        of digest: TokenDigest,
        kind: Kind,
        _ work: @escaping @Sendable () async -> Result<VerifiedAccessToken, TokenRejection>
    ) async -> Result<VerifiedAccessToken, TokenRejection> {
        let check = running.withLock { running -> Check? in
            if let joined = running.checks[digest] { return joined }
            switch kind {
            case .signature:
                guard running.signatures < maxSignatures else { return nil }
                running.signatures += 1
            case .introspection:
                guard running.introspections < maxIntrospections else { return nil }
                running.introspections += 1
            }
            // Unstructured: shared by every request presenting the token, so no one request's cancellation may
            // end it; it ends by itself within the issuer's deadlines (`IssuerHTTP`). On the global executor, not
            // the request task's (the event loop's thread).
            let started = Check(executorPreference: globalConcurrentExecutor) {
                let outcome = await work()
                self.finish(digest, kind)
                return outcome
            }
            running.checks[digest] = started
            return started
        }
        guard let check else {
            let bound = kind == .signature ? "\(maxSignatures) tokens" : "\(maxIntrospections) introspections"
            return .failure(.busy("\(bound) are being checked already"))
        }
        return await check.value
    }

    private func finish(_ digest: TokenDigest, _ kind: Kind) {
        running.withLock { running in
            running.checks[digest] = nil
            switch kind {
            case .signature: running.signatures -= 1
            case .introspection: running.introspections -= 1
            }
        }
    }
}
