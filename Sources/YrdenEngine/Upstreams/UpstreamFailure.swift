import YrdenTransport

/// The error that ended a server's last connection or attempt, and when it happened by the wall clock.
package struct UpstreamFailure: Sendable, Hashable {
    package internal(set) var error: UpstreamError
    /// Seconds since 1970-01-01T00:00:00Z.
    package internal(set) var at: Double

    package init(_ error: UpstreamError, at: Double) {
        self.error = error
        self.at = at
    }
}
