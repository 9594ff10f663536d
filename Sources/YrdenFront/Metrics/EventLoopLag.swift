import Prometheus
import YrdenTransport

/// `yrden_event_loop_lag_seconds`: how late the process's one event loop runs a tick it set for itself.
///
/// Every client request and every stdio child's I/O is served by that thread, so the lateness of its own tick
/// is how long work that ran there kept all of them waiting; a figure near zero says the loop rule holds. A
/// tick every 100 ms: a stall as long as the budget for the worst `/healthz` (100 ms) always holds a tick, ten
/// wake-ups a second cost an idle gateway nothing it would notice (its orphan sweep wakes it every second
/// already), and a shorter period would only add wake-ups. Recording bumps the histogram's counters in place
/// under its lock, on the loop, without allocating.
package struct EventLoopLag: Sendable {
    package static let name = "yrden_event_loop_lag_seconds"
    package static let interval: Duration = .milliseconds(100)
    /// From the loop's timer resolution (1 ms: an idle loop's ticks fall in the first two buckets) to a stall of
    /// 10 s, with the loop budget's edges (20 ms for the p99 of `/healthz`, 100 ms for its worst) among them.
    package static let buckets: [Duration] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000]
        .map { .milliseconds($0) }
    static let help = "How late the event loop ran a tick it set for itself every 100 ms"

    let histogram: DurationHistogram

    /// The histogram in `registry` (the same one on every call), served by `/metrics` with the rest.
    package init(registry: PrometheusCollectorRegistry) {
        histogram = registry.makeDurationHistogram(name: Self.name, buckets: Self.buckets, help: Self.help)
    }

    package func record(_ lag: Duration) {
        histogram.record(lag)
    }

    /// Records the lateness of `loop`'s ticks from now on; stop it with the token returned.
    package func measure(_ loop: ProcessEventLoop) -> UInt64 {
        let histogram = histogram
        return loop.measureLag(every: Self.interval) { histogram.record($0) }
    }
}
