/// One token bucket's shape: `rate` tokens a second refill it up to `burst`; a call takes one.
package struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    /// Tokens a second (fractions allowed: 0.5 is one call every two seconds).
    package var rate: Double
    /// The most calls that may come at once after a quiet spell.
    package var burst: Int

    package init(rate: Double, burst: Int) {
        self.rate = rate
        self.burst = burst
    }

    /// `5/s, burst 10`: how an error message names it.
    package var description: String {
        let shown = rate == rate.rounded() ? String(Int(rate)) : String(rate)
        return "\(shown)/s, burst \(burst)"
    }

    static let rateRange = 0.000_001...1_000_000.0
    static let burstRange = 1...1_000_000
}

/// The `limits` section: token buckets, kept in memory by each replica, that a request reaching an upstream
/// (a tool call, a prompt, a resource read, a completion) must find a token in.
///
/// Three kinds, each optional, all checked: the caller's own bucket (`user`, or its entry in `users`); the
/// profile's bucket, which every caller of that profile shares (`profile`, or its entry in `profiles`); and for
/// a tool named in `tools`, the caller's own bucket for that tool.
package struct LimitSettings: Sendable, Hashable {
    /// Each user's bucket, unless `users` names the user.
    package var user: RateLimit?
    package var users: [String: RateLimit] = [:]
    /// Each profile's bucket (shared by its callers), unless `profiles` names it.
    package var profile: RateLimit?
    package var profiles: [String: RateLimit] = [:]
    /// Tool (its name on `/mcp`, `<prefix><separator><name>`) → each user's bucket for it.
    package var tools: [String: RateLimit] = [:]
    /// How many buckets are kept at most; idle (refilled) ones go first.
    package var maxBuckets = LimitSettings.defaultMaxBuckets

    package static let defaultMaxBuckets = 10_000
    static let maxBucketsRange = 100...100_000

    package init() {}

    /// No limit at all: nothing to check on a call.
    package var isEmpty: Bool {
        user == nil && users.isEmpty && profile == nil && profiles.isEmpty && tools.isEmpty
    }
}
