import CoreMetrics

/// The limits' line on `/metrics`: calls refused, by the kind of limit met (a fixed set: never a user's name,
/// which would grow the metric set with every caller).
enum LimitMetrics {
    static let refused = "yrden_rate_limited_total"
    static let kinds = ["user", "profile", "tool"]

    static func recordRefusal(_ refusal: RateLimited) {
        Counter(label: refused, dimensions: [("limit", refusal.kind)]).increment()
    }
}
