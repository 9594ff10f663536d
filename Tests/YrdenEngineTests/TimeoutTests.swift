import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// A request the upstream never answers fails at its server's timeout, says so, and is cancelled upstream.
/// The gateway's timers run on the test's clock, so a 5 s timeout takes no real time at all.
@Suite struct TimeoutTests {
    private let spec = stdioSpec(
        "a",
        timeouts: Timeouts(connect: .seconds(10), request: .seconds(20), toolCall: .seconds(5))
    )

    @Test func aToolThatNeverAnswersFailsAtTheToolCallTimeoutAndIsCancelledUpstream() async throws {
        let time = TestClock()
        let channels = FakeUpstreams(time: time)
        channels["a"].handleTool("echo") { _ in .never }
        let running = RunningGateway([spec], channels: channels, time: time)
        #expect(await running.connected("a"))
        let session = try await running.openSession()
        let sent = time.now

        async let answer = running.call("a__echo", in: session)
        let forwarded = try #require(await running["a"].firstToolCall("echo"))
        #expect(await time.parked(until: sent + .seconds(5)), "the deadline is the tool-call timeout")
        time.advance(by: .seconds(4))
        #expect(running["a"].notifications(MCPMethod.cancelled).isEmpty, "not before its deadline")
        time.advance(by: .seconds(1))

        let failed = await answer
        #expect(failed.error?.code == -32000, "\(failed)")
        #expect(failed.error?.message.contains("MCP server 'a'") == true)
        #expect(failed.error?.message.contains("timed out") == true)
        let cancelled = try #require(await running["a"].firstNotification(MCPMethod.cancelled))
        #expect(cancelled.params?["requestId"] == forwarded.id.json)
        #expect(cancelled.params?["reason"] == "timeout")
        await running.stop()
    }

    @Test func anotherRequestWaitsTheRequestTimeout() async throws {
        let time = TestClock()
        let channels = FakeUpstreams(time: time)
        channels["a"].change { $0.prompts = [FakeUpstreamScript.prompt("greet")] }
        channels["a"].handle(MCPMethod.promptsGet) { _ in .never }
        let running = RunningGateway([spec], channels: channels, time: time)
        #expect(await running.connected("a"))
        let session = try await running.openSession()
        let sent = time.now

        async let answer = running.send(MCPMethod.promptsGet, ["name": "a__greet"], in: session)
        #expect(await running["a"].firstRequest(MCPMethod.promptsGet) != nil)
        // Just short of its deadline, whatever the timer slept towards before, it now waits for that one.
        time.advance(to: sent + .seconds(20) - .milliseconds(1))
        #expect(await time.parked(until: sent + .seconds(20)), "a prompt waits timeouts.request")
        #expect(running["a"].notifications(MCPMethod.cancelled).isEmpty)
        time.advance(to: sent + .seconds(20))
        #expect(await answer.error?.message.contains("timed out") == true)
        await running.stop()
    }

    @Test func progressMovesTheDeadline() async throws {
        let time = TestClock()
        let channels = FakeUpstreams(time: time)
        channels["a"].handleTool("echo") { call in
            await call.sleep(for: .seconds(4))
            call.progress(1)
            await call.sleep(for: .seconds(4))
            return .result(["content": [], "structuredContent": ["done": true]])
        }
        let running = RunningGateway([spec], channels: channels, time: time)
        #expect(await running.connected("a"))
        let session = try await running.openSession()
        let sent = time.now

        async let answer = running.call("a__echo", progressToken: "p", in: session, related: { _ in })
        #expect(await time.parked(until: sent + .seconds(4)), "the tool works for 4 s")
        time.advance(by: .seconds(4))
        // The progress at 4 s moves the deadline to 9 s; the tool answers at 8 s.
        #expect(await time.parked(until: sent + .seconds(8)))
        time.advance(by: .seconds(4))
        #expect(await answer.result?["structuredContent"]?["done"] == true)
        await running.stop()
    }
}
