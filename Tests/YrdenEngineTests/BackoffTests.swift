import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting
import YrdenTransport

@testable import YrdenEngine

/// A server that keeps failing is retried after growing delays (doubling to the policy's maximum, ±20 %
/// jitter), each timed on the gateway's clock, and is picked up as soon as it works again.
@Suite struct BackoffTests {
    private static func failedAttempt(_ snapshot: Gateway.Snapshot) -> (attempt: Int, retryAt: ContinuousClock.Instant)?
    {
        guard case .failed(_, let attempt, let retryAt?)? = snapshot.links["a"]?.state else { return nil }
        return (attempt, retryAt)
    }

    @Test func retriesWaitDoublingDelaysUpToTheMaximumOnTheGatewaysClock() async throws {
        let time = TestClock()
        let channels = FakeUpstreams(time: time)
        channels["a"].change { $0.openError = UpstreamError(.process, "cannot start scripted: no such file") }
        let spec = stdioSpec(
            "a",
            reconnect: .backoff(initialDelay: .seconds(2), maxDelay: .seconds(8), maxAttempts: nil)
        )
        let running = RunningGateway([spec], channels: channels, time: time)

        for (attempt, delay) in [(1, 2.0), (2, 4.0), (3, 8.0), (4, 8.0)] {
            #expect(await running.until { Self.failedAttempt($0)?.attempt == attempt }, "attempt \(attempt) failed")
            let (_, retryAt) = try #require(Self.failedAttempt(running.gateway.snapshot))
            let wait = retryAt - time.now
            #expect(wait >= .seconds(delay * 0.8) && wait <= .seconds(delay * 1.2), "attempt \(attempt) waits \(wait)")
            #expect(await time.parked(until: retryAt), "the connection sleeps until its retry")
            time.advance(to: retryAt - .milliseconds(1))
            #expect(await time.parked(until: retryAt), "and not a moment less")
            time.advance(to: retryAt)
        }
        #expect(await running.until { Self.failedAttempt($0)?.attempt == 5 })
        #expect(running.gateway.snapshot.links["a"]?.state.lastError?.message.contains("no such file") == true)

        channels["a"].change { $0.openError = nil }
        let (_, retryAt) = try #require(Self.failedAttempt(running.gateway.snapshot))
        #expect(await time.parked(until: retryAt))
        time.advance(to: retryAt)
        #expect(await running.connected("a"))
        #expect(channels.opens("a") == 1)
        await running.stop()
    }

    @Test func aServerThatCrashesIsReopenedOnlyOnceItsDelayHasPassed() async throws {
        let time = TestClock()
        let channels = FakeUpstreams(time: time)
        let spec = stdioSpec(
            "a",
            reconnect: .backoff(initialDelay: .seconds(5), maxDelay: .seconds(5), maxAttempts: nil)
        )
        let running = RunningGateway([spec], channels: channels, time: time)
        #expect(await running.connected("a"))
        channels.crash("a")
        #expect(await running.until { Self.failedAttempt($0) != nil })
        let (_, retryAt) = try #require(Self.failedAttempt(running.gateway.snapshot))
        #expect(await time.parked(until: retryAt))
        #expect(channels.opens("a") == 1, "nothing is opened before the delay")
        time.advance(to: retryAt)
        #expect(await running.connected("a"))
        #expect(channels.opens("a") == 2)
        #expect(channels.journal.elements == ["open a", "closed a", "open a"])
        await running.stop()
    }

    @Test func aPolicyOfNeverLeavesTheServerFailed() async throws {
        let time = TestClock()
        let channels = FakeUpstreams(time: time)
        let running = RunningGateway([stdioSpec("a", reconnect: .never)], channels: channels, time: time)
        #expect(await running.connected("a"))
        channels.crash("a")
        #expect(await running.until { $0.links["a"]?.state.lastError != nil })
        guard case .failed(_, _, nil)? = running.gateway.snapshot.links["a"]?.state else {
            Issue.record(
                "expected failed without a retry: \(String(describing: running.gateway.snapshot.links["a"]?.state))"
            )
            return
        }
        time.advance(by: .seconds(3600))
        #expect(channels.opens("a") == 1)
        await running.stop()
    }
}
