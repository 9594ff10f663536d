import YrdenConfig

/// One token bucket: refilled at its limit's rate up to its burst, a call takes one token. Pure arithmetic
/// over the instants it is given; a new bucket is full.
struct TokenBucket: Sendable {
    private(set) var tokens: Double
    private(set) var updated: ContinuousClock.Instant

    init(full limit: RateLimit, at now: ContinuousClock.Instant) {
        tokens = Double(limit.burst)
        updated = now
    }

    /// The bucket refilled up to `now` (never backwards: a clock read out of order takes nothing).
    mutating func refill(_ limit: RateLimit, at now: ContinuousClock.Instant) {
        guard now > updated else { return }
        tokens = min(Double(limit.burst), tokens + Self.seconds(now - updated) * limit.rate)
        updated = now
    }

    /// Whether a call may take a token now (after ``refill(_:at:)``).
    var hasToken: Bool { tokens >= 1 }

    mutating func take() { tokens -= 1 }

    /// How long until a token is there (zero when one is).
    func wait(_ limit: RateLimit) -> Duration {
        guard tokens < 1 else { return .zero }
        return .nanoseconds(Int64(((1 - tokens) / limit.rate * 1e9).rounded(.up)))
    }

    /// Whether the bucket is full again by `now`: then it is no different from a new one, and may go.
    func isFull(_ limit: RateLimit, at now: ContinuousClock.Instant) -> Bool {
        var refilled = self
        refilled.refill(limit, at: now)
        return refilled.tokens >= Double(limit.burst)
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
