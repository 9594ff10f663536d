/// How long a 2026-07-28 result stays fresh (`ttlMs`) and who may reuse it (`cacheScope`), as read from an
/// upstream's result and as merged for the gateway's own answers.
///
/// Read leniently, as a client must: a negative or missing `ttlMs` is 0 (stale at once), and any scope but
/// `"public"` is private.
package struct CacheHint: Sendable, Hashable {
    package var ttlMs: Int
    package var isPublic: Bool

    package init(ttlMs: Int, isPublic: Bool) {
        self.ttlMs = max(0, ttlMs)
        self.isPublic = isPublic
    }

    /// Fresh for no time, for the caller's authorization only: what promises nothing.
    package static let none = CacheHint(ttlMs: 0, isPublic: false)

    /// The hint of a result that carries one (a 2026-07-28 server's); `nil` for a result without `ttlMs`.
    package init?(result: JSONObject) {
        guard let ttl = result["ttlMs"] else { return nil }
        let milliseconds: Int =
            switch ttl {
            case .int(let value): value
            case .double(let value) where value.isFinite && abs(value) < 1e15: Int(value.rounded(.down))
            default: 0
            }
        self.init(ttlMs: milliseconds, isPublic: result["cacheScope"]?.stringValue == "public")
    }

    /// What an aggregate of several results can promise: the shortest freshness, and public only when every part
    /// is. No part at all promises nothing.
    package static func merged(_ hints: some Sequence<CacheHint>) -> CacheHint {
        var merged: CacheHint?
        for hint in hints {
            merged = CacheHint(
                ttlMs: min(merged?.ttlMs ?? hint.ttlMs, hint.ttlMs),
                isPublic: (merged?.isPublic ?? true) && hint.isPublic
            )
        }
        return merged ?? .none
    }

    /// `ttlMs` and `cacheScope` set on a result object.
    package func stamp(_ result: inout JSONObject) {
        result["ttlMs"] = .int(ttlMs)
        result["cacheScope"] = .string(isPublic ? "public" : "private")
    }
}
