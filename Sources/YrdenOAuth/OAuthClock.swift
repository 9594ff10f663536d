#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock time in seconds since 1970-01-01T00:00:00Z, injectable so expiry can be tested without waiting.
///
/// Token expiry survives restarts (it is stored), so it is wall-clock time, not a monotonic instant.
package struct OAuthClock: Sendable {
    package var now: @Sendable () -> Double

    package init(now: @escaping @Sendable () -> Double) {
        self.now = now
    }

    /// The system's real-time clock.
    package static let system = OAuthClock {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
