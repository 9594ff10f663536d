import YrdenConfig
import YrdenTransport

/// One upstream's life as a pure state machine: each event moves it to a new ``ConnectionState`` and returns
/// what the connection must do about it. No I/O, no clock, no randomness (the backoff's jitter is injected),
/// so every path, reconnects and operator commands racing an attempt included, is tested exactly.
package struct UpstreamLifecycle: Sendable {
    package enum Event: Sendable, Hashable {
        /// An operator (or the gateway starting) asks for the server to be connected.
        case connect
        /// An operator asks for it to stay down until connected again.
        case disconnect
        /// An operator asks for a fresh connection: the current one is closed and attempt 1 starts.
        case restart
        /// The server is leaving (removed, reconfigured, or the gateway is stopping).
        case stop
        /// The attempt waits for a user to sign in.
        case signInNeeded
        /// The sign-in that held the attempt is done; the attempt goes on connecting.
        case signedIn
        /// The attempt completed its handshake and lists at `at`.
        case connected(at: ContinuousClock.Instant)
        /// The attempt failed, or the connection it made was lost, at `at`.
        case failed(UpstreamError, at: ContinuousClock.Instant)
        /// The scheduled retry's instant has come.
        case retryDue
    }

    package enum Action: Sendable, Hashable {
        case publish(ConnectionState)
        /// Start connection attempt number `attempt` (1 after a command, counting up across retries).
        case openAttempt(attempt: Int)
        /// Close the attempt or connection under way; its end is not an event the machine waits for.
        case closeConnection
        case scheduleRetry(at: ContinuousClock.Instant)
        /// The reconnect policy has no attempt left: the server stays failed until an operator acts.
        case giveUp(UpstreamError)
    }

    package private(set) var state: ConnectionState = .idle
    /// Whether an attempt (or the connection it made) is under way and must be closed before another opens.
    package private(set) var isAttemptOpen = false
    private var attempt = 0
    private var connectedAt: ContinuousClock.Instant?
    private let backoff: Backoff?
    private let jitter: @Sendable () -> Double

    /// `jitter` gives the factor applied to each delay (±0.2 in the gateway, a constant in tests).
    package init(
        policy: ReconnectPolicy,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: -0.2...0.2) }
    ) {
        self.backoff = Self.backoff(for: policy)
        self.jitter = jitter
    }

    package var isStopped: Bool { state == .stopped }

    /// The instant the machine waits for, when it waits for a retry.
    package var retryAt: ContinuousClock.Instant? {
        if case .failed(_, _, let retryAt?) = state { return retryAt }
        return nil
    }

    package mutating func handle(_ event: Event) -> [Action] {
        guard state != .stopped else { return [] }
        switch event {
        case .connect:
            if isAttemptOpen || retryAt != nil { return [] }
            return open(attempt: 1)
        case .disconnect:
            return settle(in: .disconnected)
        case .restart:
            return close() + open(attempt: 1)
        case .stop:
            return settle(in: .stopped)
        case .signInNeeded:
            guard isAttemptOpen, case .connecting = state else { return [] }
            return move(to: .authenticating)
        case .signedIn:
            guard isAttemptOpen, state == .authenticating else { return [] }
            return move(to: .connecting(attempt: attempt))
        case .connected(let at):
            guard isAttemptOpen, !state.isConnected else { return [] }
            connectedAt = at
            return move(to: .connected(since: at))
        case .failed(let error, let at):
            guard isAttemptOpen else { return [] }
            return failed(error, at: at)
        case .retryDue:
            guard retryAt != nil else { return [] }
            return open(attempt: attempt + 1)
        }
    }

    private mutating func open(attempt number: Int) -> [Action] {
        attempt = number
        isAttemptOpen = true
        connectedAt = nil
        return move(to: .connecting(attempt: number)) + [.openAttempt(attempt: number)]
    }

    private mutating func close() -> [Action] {
        guard isAttemptOpen else { return [] }
        isAttemptOpen = false
        connectedAt = nil
        return [.closeConnection]
    }

    private mutating func settle(in final: ConnectionState) -> [Action] {
        let closing = close()
        guard state != final else { return closing }
        return closing + move(to: final)
    }

    private mutating func failed(_ error: UpstreamError, at: ContinuousClock.Instant) -> [Action] {
        isAttemptOpen = false
        if let connectedAt, at - connectedAt >= Backoff.stableAfter { attempt = 1 }
        connectedAt = nil
        guard let backoff, let delay = backoff.delay(forAttempt: attempt, jitter: jitter()) else {
            return move(to: .failed(error, attempt: attempt, retryAt: nil)) + [.giveUp(error)]
        }
        let retryAt = at + delay
        return move(to: .failed(error, attempt: attempt, retryAt: retryAt)) + [.scheduleRetry(at: retryAt)]
    }

    private mutating func move(to next: ConnectionState) -> [Action] {
        state = next
        return [.publish(next)]
    }

    private static func backoff(for policy: ReconnectPolicy) -> Backoff? {
        switch policy {
        case .never: nil
        case .backoff(let initial, let maximum, let attempts):
            Backoff(initial: initial, maximum: maximum, maxAttempts: attempts)
        }
    }
}
