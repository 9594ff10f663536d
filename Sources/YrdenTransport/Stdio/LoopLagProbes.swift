/// The ticks a ``ProcessReactor`` arms for itself to report how late its loop runs (see
/// ``ProcessReactor/measureLag(every:_:)``). Kept apart from the reactor's timers, whose jobs are closures made
/// anew each time, so a tick every interval allocates nothing; held inside the reactor's locked state.
struct LoopLagProbes {
    private struct Probe {
        var token: UInt64
        var interval: Duration
        var due: ContinuousClock.Instant
        var record: @Sendable (Duration) -> Void
    }

    /// One per `/metrics` registry that asked (one in a process that serves).
    private var probes: [Probe] = []

    mutating func add(token: UInt64, every interval: Duration, _ record: @escaping @Sendable (Duration) -> Void) {
        probes.append(Probe(token: token, interval: interval, due: .now + interval, record: record))
    }

    mutating func remove(_ token: UInt64) {
        probes.removeAll { $0.token == token }
    }

    /// The first probe at or after `index` that is due at `now`, re-armed from `now`, with how late it ran;
    /// `index` moves past it. `nil` when no further probe is due. Allocates nothing.
    mutating func takeDue(
        from index: inout Int,
        now: ContinuousClock.Instant
    ) -> (record: @Sendable (Duration) -> Void, lag: Duration)? {
        while index < probes.count {
            defer { index += 1 }
            guard probes[index].due <= now else { continue }
            let lag = now - probes[index].due
            probes[index].due = now + probes[index].interval
            return (probes[index].record, lag)
        }
        return nil
    }

    /// The earliest instant a probe is due; `nil` when there is none.
    var nextDue: ContinuousClock.Instant? { probes.lazy.map(\.due).min() }
}
