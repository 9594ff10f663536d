import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// JSON-RPC ids are each client's own: two sessions may use the same id at once, and each still gets its own
/// answer, because the upstream only ever sees ids the gateway minted.
@Suite struct SessionIDReuseTests {
    @Test func twoSessionsUsingTheSameIDAtOnceEachGetTheirOwnAnswer() async throws {
        let channels = FakeUpstreams()
        channels["a"].handleTool("echo") { call in
            // Both calls are upstream before either is answered.
            _ = await call.upstream.received.count(atLeast: 2) { $0.method == MCPMethod.toolsCall }
            return .result(["content": [], "structuredContent": ["who": call.arguments?["who"] ?? .null]])
        }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        let first = try await running.openSession()
        let second = try await running.openSession()

        async let one = running.call("a__echo", ["who": "one"], id: .int(1), in: first)
        async let two = running.call("a__echo", ["who": "two"], id: .int(1), in: second)
        let (answerOne, answerTwo) = await (one, two)

        #expect(answerOne.response?.id == .int(1))
        #expect(answerTwo.response?.id == .int(1))
        #expect(answerOne.result?["structuredContent"]?["who"] == "one")
        #expect(answerTwo.result?["structuredContent"]?["who"] == "two")
        let upstreamIDs = running["a"].requests(MCPMethod.toolsCall).map(\.id)
        #expect(upstreamIDs.count == 2)
        #expect(Set(upstreamIDs).count == 2, "the upstream saw distinct ids: \(upstreamIDs)")
        await running.stop()
    }

    @Test func oneSessionReusingAnIDStillInFlightIsRefused() async throws {
        let channels = FakeUpstreams()
        channels["a"].handleTool("echo") { call in
            _ = await call.upstream.firstNotification(MCPMethod.cancelled, within: .seconds(30))
            return .never
        }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        let session = try await running.openSession()

        async let held = running.call("a__echo", id: .int(1), in: session)
        #expect(await running["a"].firstToolCall("echo") != nil)
        let reused = await running.call("a__echo", id: .int(1), in: session)
        #expect(reused.error?.code == -32600, "\(reused)")
        #expect(running["a"].requests(MCPMethod.toolsCall).count == 1, "the second one never left the gateway")

        running.gateway.handle(
            JSONRPCNotification(method: MCPMethod.cancelled, params: ["requestId": 1]),
            session: session
        )
        guard case .none = await held else {
            Issue.record("the cancelled call is not answered")
            return
        }
        await running.stop()
    }
}
