import Logging
import Testing
import YrdenConfig
import YrdenTesting
import YrdenTransport

@testable import YrdenEngine

/// Pings, timed on the gateway's clock: due every 30 s, and three missed in a row replace the connection.
@Suite struct UpstreamPingTests {
    @Test func threeMissedPingsReplaceTheConnection() async throws {
        let time = TestClock()
        let channels = FakeUpstreams()
        let gateway = Gateway(
            config: GatewayConfig(servers: [stdioSpec("a")]),
            logger: Logger(label: "test"),
            connector: UpstreamConnector(channels: channels, time: time)
        )
        let run = Task { await gateway.run() }
        defer { run.cancel() }
        let running = RunningGateway(observing: gateway, channels: channels, task: run)
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        channels.change { $0.answers = false }
        for missed in 1...UpstreamConnection.missedPingsBeforeReconnect {
            // The ping loop sleeps until the next ping is due; then the unanswered ping until its deadline. By
            // their deadlines, these are told from the gateway's other timers (its idle-session sweep).
            let due = time.now + UpstreamConnection.pingInterval
            #expect(await time.parked(until: due), "ping \(missed) is waited for")
            #expect(channels.opens("a") == 1)
            time.advance(to: due)
            #expect(await time.parked(until: due + UpstreamConnection.pingTimeout), "ping \(missed) has a deadline")
            time.advance(by: UpstreamConnection.pingTimeout)
        }
        #expect(await running.until { $0.links["a"]?.state.lastError != nil })
        let error = try #require(gateway.snapshot.links["a"]?.state.lastError)
        #expect(error.kind == .timeout)
        #expect(error.message.contains("missed 3 pings"))
    }

    @Test func aRetryWaitsForItsInstantOnTheGatewaysClock() async throws {
        let time = TestClock()
        let channels = FakeUpstreams()
        let spec = stdioSpec(
            "a",
            reconnect: .backoff(initialDelay: .seconds(5), maxDelay: .seconds(5), maxAttempts: nil)
        )
        let gateway = Gateway(
            config: GatewayConfig(servers: [spec]),
            logger: Logger(label: "test"),
            connector: UpstreamConnector(channels: channels, time: time)
        )
        let run = Task { await gateway.run() }
        defer { run.cancel() }
        let running = RunningGateway(observing: gateway, channels: channels, task: run)
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        channels.crash("a")
        #expect(await running.until { $0.links["a"]?.state.lastError != nil })
        guard case .failed(_, 1, let retryAt?)? = gateway.snapshot.links["a"]?.state else {
            Issue.record("expected a scheduled retry")
            return
        }
        // ±20 % jitter around 5 s.
        #expect(retryAt - time.now >= .seconds(4) && retryAt - time.now <= .seconds(6))
        #expect(await time.parked(until: retryAt), "the connection sleeps until its retry")
        time.advance(by: .milliseconds(3900))
        #expect(await time.parked(until: retryAt), "not yet due")
        #expect(channels.opens("a") == 1)
        time.advance(by: .milliseconds(2200))
        #expect(await running.until { if case .connected = $0.links["a"]?.state { true } else { false } })
        #expect(channels.opens("a") == 2)
    }
}
