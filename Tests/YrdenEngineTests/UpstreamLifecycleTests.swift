import Testing
import YrdenConfig
import YrdenTransport

@testable import YrdenEngine

/// The upstream state machine alone: every instant is given, the jitter is fixed, nothing sleeps.
@Suite struct UpstreamLifecycleTests {
    private let t0 = ContinuousClock.now
    private let refused = UpstreamError(.network, "connection refused")
    private let everySecondThenDoubling = ReconnectPolicy.backoff(
        initialDelay: .seconds(1),
        maxDelay: .seconds(8),
        maxAttempts: nil
    )

    private func machine(_ policy: ReconnectPolicy, jitter: Double = 0) -> UpstreamLifecycle {
        UpstreamLifecycle(policy: policy, jitter: { jitter })
    }

    @Test func startingOpensTheFirstAttempt() {
        var life = machine(everySecondThenDoubling)
        #expect(life.state == .idle)
        #expect(life.handle(.connect) == [.publish(.connecting(attempt: 1)), .openAttempt(attempt: 1)])
        #expect(life.isAttemptOpen)
        #expect(life.handle(.connect) == [], "an attempt under way is not opened twice")
    }

    @Test func failuresRetryAtTheBackoffsDelaysUpToItsMaximum() {
        var life = machine(everySecondThenDoubling)
        _ = life.handle(.connect)
        var now = t0
        for (attempt, delay) in [(1, 1), (2, 2), (3, 4), (4, 8), (5, 8)] {
            let retryAt = now + .seconds(delay)
            #expect(
                life.handle(.failed(refused, at: now))
                    == [.publish(.failed(refused, attempt: attempt, retryAt: retryAt)), .scheduleRetry(at: retryAt)]
            )
            #expect(life.retryAt == retryAt)
            #expect(
                life.handle(.retryDue)
                    == [.publish(.connecting(attempt: attempt + 1)), .openAttempt(attempt: attempt + 1)]
            )
            now = retryAt + .milliseconds(10)
        }
    }

    @Test func theInjectedJitterScalesTheDelay() {
        var life = machine(everySecondThenDoubling, jitter: 0.2)
        _ = life.handle(.connect)
        let actions = life.handle(.failed(refused, at: t0))
        #expect(actions.last == .scheduleRetry(at: t0 + .milliseconds(1200)))
        var early = machine(everySecondThenDoubling, jitter: -0.2)
        _ = early.handle(.connect)
        #expect(early.handle(.failed(refused, at: t0)).last == .scheduleRetry(at: t0 + .milliseconds(800)))
    }

    @Test func maxAttemptsRetriesThatManyTimesThenGivesUp() {
        var life = machine(.backoff(initialDelay: .seconds(1), maxDelay: .seconds(60), maxAttempts: 2))
        _ = life.handle(.connect)
        for attempt in 1...2 {
            #expect(life.handle(.failed(refused, at: t0)).last.map(Self.isRetry) == true, "attempt \(attempt)")
            _ = life.handle(.retryDue)
        }
        #expect(
            life.handle(.failed(refused, at: t0))
                == [.publish(.failed(refused, attempt: 3, retryAt: nil)), .giveUp(refused)]
        )
        #expect(life.retryAt == nil)
        #expect(life.handle(.retryDue) == [])
    }

    @Test func neverGivesUpAtTheFirstFailureAndAnOperatorStartsOver() {
        var life = machine(.never)
        _ = life.handle(.connect)
        #expect(
            life.handle(.failed(refused, at: t0)) == [
                .publish(.failed(refused, attempt: 1, retryAt: nil)), .giveUp(refused),
            ]
        )
        #expect(life.handle(.connect) == [.publish(.connecting(attempt: 1)), .openAttempt(attempt: 1)])
    }

    @Test func aConnectionThatStayedUpStartsCountingAgain() {
        var life = machine(everySecondThenDoubling)
        _ = life.handle(.connect)
        _ = life.handle(.failed(refused, at: t0))
        _ = life.handle(.retryDue)
        _ = life.handle(.failed(refused, at: t0 + .seconds(1)))
        _ = life.handle(.retryDue)
        let up = t0 + .seconds(5)
        #expect(life.handle(.connected(at: up)) == [.publish(.connected(since: up))])
        let lost = up + Backoff.stableAfter
        let retryAt = lost + .seconds(1)
        #expect(
            life.handle(.failed(refused, at: lost))
                == [.publish(.failed(refused, attempt: 1, retryAt: retryAt)), .scheduleRetry(at: retryAt)]
        )
    }

    @Test func aShortConnectionKeepsCounting() {
        var life = machine(everySecondThenDoubling)
        _ = life.handle(.connect)
        _ = life.handle(.connected(at: t0))
        let lost = t0 + .seconds(59)
        #expect(life.handle(.failed(refused, at: lost)).last == .scheduleRetry(at: lost + .seconds(1)))
        _ = life.handle(.retryDue)
        _ = life.handle(.connected(at: lost + .seconds(2)))
        let again = lost + .seconds(3)
        #expect(life.handle(.failed(refused, at: again)).last == .scheduleRetry(at: again + .seconds(2)))
    }

    @Test func signingInShowsAuthenticatingThenConnectingAgain() {
        var life = machine(everySecondThenDoubling)
        _ = life.handle(.connect)
        #expect(life.handle(.signInNeeded) == [.publish(.authenticating)])
        #expect(life.handle(.signInNeeded) == [])
        #expect(life.handle(.signedIn) == [.publish(.connecting(attempt: 1))])
        #expect(life.handle(.connected(at: t0)) == [.publish(.connected(since: t0))])
        #expect(life.handle(.signInNeeded) == [], "a connected server is not waiting for a sign-in")
    }

    @Test func disconnectClosesAndStaysDownUntilConnected() {
        var life = machine(everySecondThenDoubling)
        _ = life.handle(.connect)
        _ = life.handle(.connected(at: t0))
        #expect(life.handle(.disconnect) == [.closeConnection, .publish(.disconnected)])
        #expect(!life.isAttemptOpen)
        #expect(life.handle(.failed(refused, at: t0)) == [], "the closed connection's end is no failure")
        #expect(life.handle(.disconnect) == [])
        #expect(life.handle(.connect) == [.publish(.connecting(attempt: 1)), .openAttempt(attempt: 1)])
    }

    @Test func disconnectWhileWaitingToRetryCancelsTheRetry() {
        var life = machine(everySecondThenDoubling)
        _ = life.handle(.connect)
        _ = life.handle(.failed(refused, at: t0))
        #expect(life.handle(.connect) == [], "a retry is already scheduled")
        #expect(life.handle(.disconnect) == [.publish(.disconnected)])
        #expect(life.retryAt == nil)
        #expect(life.handle(.retryDue) == [])
    }

    @Test func restartClosesAndStartsAgainFromTheFirstAttempt() {
        var life = machine(everySecondThenDoubling)
        _ = life.handle(.connect)
        _ = life.handle(.failed(refused, at: t0))
        _ = life.handle(.retryDue)
        #expect(
            life.handle(.restart)
                == [.closeConnection, .publish(.connecting(attempt: 1)), .openAttempt(attempt: 1)]
        )
        var down = machine(everySecondThenDoubling)
        _ = down.handle(.connect)
        _ = down.handle(.disconnect)
        #expect(down.handle(.restart) == [.publish(.connecting(attempt: 1)), .openAttempt(attempt: 1)])
    }

    @Test func stopIsFinal() {
        var life = machine(everySecondThenDoubling)
        _ = life.handle(.connect)
        #expect(life.handle(.stop) == [.closeConnection, .publish(.stopped)])
        #expect(life.isStopped)
        for event: UpstreamLifecycle.Event in [.connect, .restart, .retryDue, .connected(at: t0), .stop] {
            #expect(life.handle(event) == [], "\(event)")
        }
        var idle = machine(everySecondThenDoubling)
        #expect(idle.handle(.stop) == [.publish(.stopped)])
    }

    private static func isRetry(_ action: UpstreamLifecycle.Action) -> Bool {
        if case .scheduleRetry = action { return true }
        return false
    }
}
