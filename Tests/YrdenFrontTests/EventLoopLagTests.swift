import Prometheus
import Testing

@testable import YrdenFront

/// `yrden_event_loop_lag_seconds` as `/metrics` shows it: each lag counted in every bucket at or above it.
@Suite struct EventLoopLagTests {
    @Test func lagsAreCountedInTheirBuckets() {
        let registry = PrometheusCollectorRegistry()
        let lag = EventLoopLag(registry: registry)
        for milliseconds in [0, 3, 20, 150, 20_000] { lag.record(.milliseconds(milliseconds)) }
        // Asked for again (a second gateway in one process), the histogram is the same one.
        EventLoopLag(registry: registry).record(.microseconds(500))
        let text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        let buckets = lines.filter { $0.hasPrefix("yrden_event_loop_lag_seconds_bucket") }
        #expect(
            buckets == [
                #"yrden_event_loop_lag_seconds_bucket{le="0.001"} 2"#,
                #"yrden_event_loop_lag_seconds_bucket{le="0.002"} 2"#,
                #"yrden_event_loop_lag_seconds_bucket{le="0.005"} 3"#,
                #"yrden_event_loop_lag_seconds_bucket{le="0.01"} 3"#,
                #"yrden_event_loop_lag_seconds_bucket{le="0.02"} 4"#,
                #"yrden_event_loop_lag_seconds_bucket{le="0.05"} 4"#,
                #"yrden_event_loop_lag_seconds_bucket{le="0.1"} 4"#,
                #"yrden_event_loop_lag_seconds_bucket{le="0.2"} 5"#,
                #"yrden_event_loop_lag_seconds_bucket{le="0.5"} 5"#,
                #"yrden_event_loop_lag_seconds_bucket{le="1.0"} 5"#,
                #"yrden_event_loop_lag_seconds_bucket{le="2.0"} 5"#,
                #"yrden_event_loop_lag_seconds_bucket{le="5.0"} 5"#,
                #"yrden_event_loop_lag_seconds_bucket{le="10.0"} 5"#,
                #"yrden_event_loop_lag_seconds_bucket{le="+Inf"} 6"#,
            ]
        )
        #expect(lines.contains("yrden_event_loop_lag_seconds_count 6"))
        #expect(lines.contains("yrden_event_loop_lag_seconds_sum 20.1735"))
        #expect(lines.contains { $0.hasPrefix("# HELP yrden_event_loop_lag_seconds ") })
        #expect(lines.contains("# TYPE yrden_event_loop_lag_seconds histogram"))
    }
}
