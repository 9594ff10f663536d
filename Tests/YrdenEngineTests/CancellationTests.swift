import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// A client's `notifications/cancelled` stops the call where it runs: the upstream is told under its own
/// id, and the client gets no answer for it, as MCP's cancellation says.
@Suite struct CancellationTests {
    private func cancel(_ id: JSONRPCID, in session: DownstreamSession, _ running: RunningGateway) {
        let params: JSONValue = ["requestId": id.json, "reason": "the user pressed stop"]
        running.gateway.handle(JSONRPCNotification(method: MCPMethod.cancelled, params: params), session: session)
    }

    @Test func theClientsCancellationReachesTheUpstreamUnderItsIDAndTheRequestGetsNoAnswer() async throws {
        let channels = FakeUpstreams()
        // Answers only once it has heard the cancellation: a late answer the client must not get.
        channels["a"].handleTool("echo") { call in
            _ = await call.upstream.firstNotification(MCPMethod.cancelled)
            return .result(["content": []])
        }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        let session = try await running.openSession()

        async let answer = running.call("a__echo", id: .int(7), in: session)
        let forwarded = try #require(await running["a"].firstToolCall("echo"))
        cancel(.int(7), in: session, running)

        let cancelled = try #require(await running["a"].firstNotification(MCPMethod.cancelled))
        #expect(cancelled.params?["requestId"] == forwarded.id.json, "under the upstream's id, not the client's")
        #expect(cancelled.params?["reason"] == "the user pressed stop")
        guard case .none = await answer else {
            Issue.record("a cancelled request is not answered")
            return
        }
        await running.stop()
    }

    @Test func overHTTPACancelledRequestEndsWithRequestCancelled() async throws {
        let channels = FakeUpstreams()
        channels["a"].handleTool("echo") { _ in .never }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        let session = try await running.openSession()
        let gateway = running.gateway
        let request = JSONRPCRequest(id: .string("x"), method: MCPMethod.toolsCall, params: ["name": "a__echo"])

        async let response = withDeadline { await gateway.handle(request, session: session, related: nil) }
        #expect(await running["a"].firstToolCall("echo") != nil)
        cancel(.string("x"), in: session, running)

        let ended = try #require(await response)
        #expect(ended.id == .string("x"))
        guard case .failure(let error) = ended.outcome else {
            Issue.record("expected an error, got \(ended)")
            return
        }
        #expect(error.code == -32800)
        #expect(running["a"].notifications(MCPMethod.cancelled).count == 1)
        await running.stop()
    }

    @Test func aCancellationForAnIDNotInFlightIsIgnored() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))
        let session = try await running.openSession()
        cancel(.int(99), in: session, running)
        let answer = await running.call("a__echo", id: .int(99), in: session)
        #expect(answer.result?["structuredContent"]?["tool"] == "echo")
        #expect(running["a"].notifications(MCPMethod.cancelled).isEmpty)
        await running.stop()
    }
}
