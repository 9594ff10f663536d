/// Reconnect delays: exponential from `initial` to `maximum`, with ±20 % jitter so that many upstreams that
/// failed together do not all come back in the same instant.
package struct Backoff: Sendable, Hashable {
    package var initial: Duration
    package var maximum: Duration
    package var maxAttempts: Int?

    package init(initial: Duration = .seconds(1), maximum: Duration = .seconds(60), maxAttempts: Int? = nil) {
        self.initial = initial
        self.maximum = maximum
        self.maxAttempts = maxAttempts
    }

    /// The delay before attempt `attempt` (1 = the first retry), or `nil` when no attempt is left.
    package func delay(forAttempt attempt: Int, jitter: Double = Double.random(in: -0.2...0.2)) -> Duration? {
        if let maxAttempts, attempt > maxAttempts { return nil }
        let exponent = min(max(attempt - 1, 0), 30)
        let base = min(initial * (1 << exponent), maximum)
        return base * (1 + jitter)
    }

    /// A connection that stayed up this long starts counting attempts from zero again.
    package static let stableAfter: Duration = .seconds(60)
}
