import Synchronization
import YrdenConfig

/// The `limits` of the config at work: a caller's call takes a token from each bucket that applies to it (the
/// user's, the profile's, the user's for that tool), or from none when one of them is empty, and is then
/// refused with the limit that was met and when a token will be there (``RateLimited``).
///
/// Kept in memory by each replica. Bounded: at most `maxBuckets` buckets; past it, buckets full again (as good
/// as new) are dropped, then the least recently used until a tenth is free, so a flood of new users costs one
/// sweep per tenth of the bound, not one per call. Lock-guarded, no I/O: checked on the loop before a call goes
/// upstream.
package final class RateLimiter: Sendable {
    /// Whose bucket it is.
    enum Key: Hashable, Sendable {
        case user(String)
        case profile(String)
        case tool(String, user: String)
    }

    private struct State {
        var settings: LimitSettings
        var buckets: [Key: TokenBucket] = [:]
    }

    private let state: Mutex<State>

    package init(_ settings: LimitSettings) {
        state = Mutex(State(settings: settings))
    }

    /// Applies changed limits (a reload): buckets of limits still there keep their tokens, up to the new burst.
    package func update(_ settings: LimitSettings) {
        state.withLock { state in
            guard state.settings != settings else { return }
            state.settings = settings
            state.buckets = state.buckets.filter { key, _ in Self.limit(for: key, in: settings) != nil }
        }
    }

    /// Whether any limit is set (none: calls are not even looked at).
    package var isActive: Bool { state.withLock { !$0.settings.isEmpty } }

    /// Buckets held now.
    package var bucketCount: Int { state.withLock { $0.buckets.count } }

    /// Takes a token for `user`'s call in `profile` (`nil`: another endpoint) of `tool` (its name on `/mcp`;
    /// `nil` for what is not a tool call), or refuses it with the first limit met.
    package func admit(
        user: String,
        profile: String?,
        tool: String?,
        at now: ContinuousClock.Instant
    ) -> RateLimited? {
        state.withLock { state -> RateLimited? in
            guard !state.settings.isEmpty else { return nil }
            var keys: [(Key, RateLimit)] = []
            for key in Self.keys(user: user, profile: profile, tool: tool) {
                if let limit = Self.limit(for: key, in: state.settings) { keys.append((key, limit)) }
            }
            guard !keys.isEmpty else { return nil }
            if keys.contains(where: { state.buckets[$0.0] == nil }) { Self.makeRoom(in: &state, at: now) }
            var refusal: RateLimited?
            for (key, limit) in keys {
                var bucket = state.buckets[key] ?? TokenBucket(full: limit, at: now)
                bucket.refill(limit, at: now)
                if !bucket.hasToken, refusal == nil || bucket.wait(limit) > refusal!.retryAfter {
                    refusal = RateLimited(key: key, limit: limit, retryAfter: bucket.wait(limit))
                }
                state.buckets[key] = bucket
            }
            if let refusal { return refusal }
            for (key, _) in keys { state.buckets[key]?.take() }
            return nil
        }
    }

    private static func keys(user: String, profile: String?, tool: String?) -> [Key] {
        var keys: [Key] = [.user(user)]
        if let profile { keys.append(.profile(profile)) }
        if let tool { keys.append(.tool(tool, user: user)) }
        return keys
    }

    static func limit(for key: Key, in settings: LimitSettings) -> RateLimit? {
        switch key {
        case .user(let user): settings.users[user] ?? settings.user
        case .profile(let profile): settings.profiles[profile] ?? settings.profile
        case .tool(let tool, _): settings.tools[tool]
        }
    }

    /// Called before a new bucket is stored: at the bound, drops full buckets, then the least recently used
    /// until a tenth of the bound is free.
    private static func makeRoom(in state: inout State, at now: ContinuousClock.Instant) {
        let bound = state.settings.maxBuckets
        guard state.buckets.count >= bound else { return }
        let settings = state.settings
        state.buckets = state.buckets.filter { key, bucket in
            guard let limit = limit(for: key, in: settings) else { return false }
            return !bucket.isFull(limit, at: now)
        }
        let target = bound - max(1, bound / 10)
        guard state.buckets.count > target else { return }
        let oldest = state.buckets.sorted { $0.value.updated < $1.value.updated }.prefix(state.buckets.count - target)
        for (key, _) in oldest { state.buckets[key] = nil }
    }
}
