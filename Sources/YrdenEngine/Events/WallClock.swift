#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock time for what operators read (log entries, "next retry at"); durations use `ContinuousClock`.
package enum WallClock {
    /// Seconds since 1970-01-01T00:00:00Z.
    package static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// The wall-clock time at which `instant` of the continuous clock falls (past or future).
    package static func time(of instant: ContinuousClock.Instant) -> Double {
        let offset = instant - ContinuousClock.now
        let (seconds, attoseconds) = offset.components
        return now() + Double(seconds) + Double(attoseconds) / 1e18
    }
}
