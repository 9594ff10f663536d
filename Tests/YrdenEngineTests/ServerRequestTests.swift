import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// What an upstream asks the gateway: `ping` is answered, and what the gateway does not offer upstream
/// (sampling, roots, elicitation) is refused honestly rather than left unanswered.
@Suite struct ServerRequestTests {
    @Test func anUpstreamsPingIsAnsweredAndSamplingIsRefused() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))

        let pong = try #require(await running["a"].ask(MCPMethod.ping))
        #expect(try pong.outcome.get() == [:])

        let sampling = try #require(
            await running["a"].ask("sampling/createMessage", params: ["messages": [], "maxTokens": 10])
        )
        guard case .failure(let error) = sampling.outcome else {
            Issue.record("expected sampling to be refused, got \(sampling)")
            return
        }
        #expect(error.code == -32601)
        #expect(running.gateway.snapshot.links["a"]?.state.isConnected == true, "the connection lives on")
        await running.stop()
    }

    @Test func theHandshakeAnnouncesTheClientAndIsAcknowledged() async throws {
        let channels = FakeUpstreams()
        channels["a"].change { $0.instructions = "Use a__echo to echo." }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        let initialize = try #require(running["a"].requests(MCPMethod.initialize).first)
        #expect(initialize.params?["protocolVersion"] != nil)
        #expect(initialize.params?["clientInfo"]?["name"] != nil)
        #expect(await running["a"].firstNotification(MCPMethod.initialized) != nil)

        let request = JSONRPCRequest(
            id: .int(0),
            method: MCPMethod.initialize,
            params: ["protocolVersion": "2025-06-18"]
        )
        let (_, response) = try await running.gateway.initialize(request)
        let instructions = try response.outcome.get()["instructions"]?.stringValue ?? ""
        #expect(instructions.contains("## a\nUse a__echo to echo."), "the upstream's instructions are merged")
        await running.stop()
    }
}
