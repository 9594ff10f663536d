import Synchronization

/// How many JWTs not seen before may be checked right where the request runs (the event loop's thread) instead
/// of off it: a token bucket of `perSecond`, holding at most `perSecond` (a second's worth).
///
/// Sending a check off the loop costs two thread wake-ups, which on a virtual machine cost more than the check
/// itself (measured on a release build under a flood of badly signed tokens: ~+100–180 µs of process CPU per
/// token off the loop, against the tens of µs of an RS256 verify). A gateway's clients bring a new token now and
/// then, so those are checked at once; a flood of them would take the loop's time from every other client, so
/// what passes the budget goes off the loop (``TokenChecks``), bounded there.
final class InlineCheckBudget: Sendable {
    private struct Bucket {
        var tokens: Double
        var refilledAt: Double?
    }

    let perSecond: Double
    private let bucket: Mutex<Bucket>

    init(perSecond: Int) {
        self.perSecond = Double(max(0, perSecond))
        bucket = Mutex(Bucket(tokens: Double(max(0, perSecond))))
    }

    /// Whether one more check may run inline now.
    func take(now: Double) -> Bool {
        bucket.withLock { bucket in
            if let last = bucket.refilledAt, now > last {
                bucket.tokens = min(perSecond, bucket.tokens + (now - last) * perSecond)
            }
            bucket.refilledAt = now
            guard bucket.tokens >= 1 else { return false }
            bucket.tokens -= 1
            return true
        }
    }
}
