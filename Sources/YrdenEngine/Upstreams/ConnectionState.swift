import YrdenTransport

/// Where one upstream is in its life, as operators see it in health output and the log.
package enum ConnectionState: Sendable, Hashable {
    case idle
    case connecting(attempt: Int)
    /// Waiting for an OAuth sign-in (the link's `auth` says how far it got) before connecting.
    case authenticating
    case connected(since: ContinuousClock.Instant)
    case failed(UpstreamError, attempt: Int, retryAt: ContinuousClock.Instant?)
    /// An operator disconnected it; it stays down until connected again.
    case disconnected
    case disabled
    case stopped

    /// The short name used in errors, health output and logs.
    package var name: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .authenticating: "authenticating"
        case .connected: "connected"
        case .failed: "failed"
        case .disconnected: "disconnected"
        case .disabled: "disabled"
        case .stopped: "stopped"
        }
    }

    package var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }

    package var lastError: UpstreamError? {
        if case .failed(let error, _, _) = self { return error }
        return nil
    }
}
