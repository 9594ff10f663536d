import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// A server that dies fails its calls at once, naming it, instead of leaving clients to wait out a timeout;
/// calls made while it is down fail at once too, and work again once it is back.
///
/// Time is the test's: the timeouts (300 s) and the retry (5 s) never pass unless the test moves the clock,
/// so an answer that arrives proves it did not wait for either.
@Suite struct DeadServerTests {
    private let spec = stdioSpec(
        "a",
        reconnect: .backoff(initialDelay: .seconds(5), maxDelay: .seconds(5), maxAttempts: nil)
    )

    private func upstreamUnavailable(_ answer: Answer) -> Bool {
        answer.error?.code == -32000 && answer.error?.data?["server"] == "a"
    }

    @Test func aCallInFlightFailsTheMomentItsServerCrashesNamingIt() async throws {
        let time = TestClock()
        let channels = FakeUpstreams(time: time)
        channels["a"].handleTool("echo") { _ in .never }
        let running = RunningGateway([spec], channels: channels, time: time)
        #expect(await running.connected("a"))
        let session = try await running.openSession()
        let started = time.now

        async let answer = running.call("a__echo", in: session)
        #expect(await running["a"].firstToolCall("echo") != nil)
        running["a"].crash("the server exited with status 1")

        let failed = await answer
        #expect(upstreamUnavailable(failed), "\(failed)")
        #expect(failed.error?.message.contains("MCP server 'a'") == true)
        #expect(failed.error?.message.contains("exited with status 1") == true)
        #expect(time.now == started, "no timeout had to pass")
        await running.stop()
    }

    @Test func aCallToAServerThatIsDownFailsAtOnceAndWorksOnceItReconnects() async throws {
        let time = TestClock()
        let channels = FakeUpstreams(time: time)
        let running = RunningGateway([spec], channels: channels, time: time)
        #expect(await running.connected("a"))
        let session = try await running.openSession()

        running["a"].crash()
        #expect(await running.until { $0.links["a"]?.state.lastError != nil })
        let down = await running.call("a__echo", id: .int(1), in: session)
        #expect(upstreamUnavailable(down), "\(down)")
        #expect(down.error?.message.contains("MCP server 'a' is not connected") == true)
        #expect(running["a"].requests(MCPMethod.toolsCall).isEmpty, "nothing was sent to a dead server")

        guard case .failed(_, _, let retryAt?)? = running.gateway.snapshot.links["a"]?.state else {
            Issue.record("expected a scheduled retry")
            return
        }
        #expect(await time.parked(until: retryAt))
        time.advance(to: retryAt)
        #expect(await running.connected("a"))
        #expect(channels.opens("a") == 2)

        let back = await running.call("a__echo", id: .int(2), in: session)
        #expect(back.result?["structuredContent"]?["tool"] == "echo", "\(back)")
        await running.stop()
    }
}
