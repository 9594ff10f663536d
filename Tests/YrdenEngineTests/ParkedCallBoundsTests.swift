import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// Parked calls must not let one client take the gateway from the others: a call that waits for its client
/// is not taken to ask for others, what it asked is answered `cancel` when it ends unanswered, and each
/// client and server has a bound of its own.
@Suite struct ParkedCallBoundsTests {
    /// A handshake-era fake whose `echo` elicits and records what the gateway answered.
    private static func running(
        toolCall: Duration = .seconds(30),
        answers: Recording<JSONRPCResponse>
    ) -> RunningGateway {
        let channels = FakeUpstreams()
        channels["a"].handleTool("echo") { call in
            guard let answer = await call.upstream.ask(MCPMethod.elicitationCreate, params: ["message": "name?"]) else {
                return .error(.internalError("no answer"))
            }
            answers.append(answer)
            switch answer.outcome {
            case .success(let result): return .result(["structuredContent": ["answer": result]])
            case .failure(let error): return .error(error)
            }
        }
        return RunningGateway([stdioSpec("a", timeouts: Timeouts(toolCall: toolCall))], channels: channels)
    }

    private static func call(id: Int) -> JSONRPCRequest {
        let params: JSONObject = [
            "name": "a__echo", "arguments": [:],
            "_meta": .object([
                ModernEnvelope.versionKey: .string(ProtocolVersion.modern),
                ModernEnvelope.capabilitiesKey: ["elicitation": [:]],
            ]),
        ]
        return JSONRPCRequest(id: .int(id), method: MCPMethod.toolsCall, params: .object(params))
    }

    private static func client(_ name: String) -> ClientKey? {
        ClientKey(authorization: "Bearer \(name)", address: nil)
    }

    private func respond(_ running: RunningGateway, id: Int, as client: String) async -> JSONRPCResponse {
        await running.gateway.respondStateless(
            to: Self.call(id: id),
            principal: "Bearer \(client)",
            client: Self.client(client),
            related: nil
        )
    }

    /// A stdio server does not say which call asks: a parked call whose asks are with its client is blocked
    /// on them, so the next ask is another call's, not "several clients' calls in flight".
    @Test func aCallWaitingForItsClientDoesNotMakeAnotherClientsAskUnattributable() async throws {
        let running = Self.running(answers: Recording())
        #expect(await running.connected("a"))
        let first = try await respond(running, id: 1, as: "one").outcome.get()
        #expect(first["resultType"] == "input_required")
        let second = await respond(running, id: 2, as: "two")
        #expect(try second.outcome.get()["resultType"] == "input_required", "\(second.outcome)")
        #expect(running.gateway.bridge.parked.count == 2)
        await running.stop()
    }

    /// A call that ends unanswered (its token expired, or its own timeout) answers its elicitation
    /// `cancel`, as the README promises, not an error.
    @Test func anAbandonedCallsElicitationIsAnsweredCancel() async throws {
        let answers = Recording<JSONRPCResponse>()
        let running = Self.running(toolCall: .seconds(1), answers: answers)
        #expect(await running.connected("a"))
        let first = try await respond(running, id: 1, as: "one").outcome.get()
        #expect(first["resultType"] == "input_required")
        let answer = await answers.first(within: .seconds(5)) { _ in true }
        #expect(try answer?.outcome.get() == ["action": "cancel"], "\(String(describing: answer?.outcome))")
        await running.stop()
    }

    /// One client's parked calls stop at its own bound; another client still parks.
    @Test func oneClientsParkedCallsStopAtItsBoundAndOthersStillPark() async throws {
        let running = Self.running(answers: Recording())
        #expect(await running.connected("a"))
        for id in 1...ParkedCalls.perClientLimit {
            let parked = await respond(running, id: id, as: "greedy")
            #expect(try parked.outcome.get()["resultType"] == "input_required")
        }
        let refused = await respond(running, id: 100, as: "greedy")
        guard case .failure(let error) = refused.outcome else {
            Issue.record("the call past the client's bound was parked")
            return
        }
        #expect(error.message.contains("this client has \(ParkedCalls.perClientLimit) calls waiting"))
        let other = await respond(running, id: 101, as: "polite")
        #expect(try other.outcome.get()["resultType"] == "input_required")
        #expect(running.gateway.bridge.parked.count == ParkedCalls.perClientLimit + 1)
        await running.stop()
    }

    @Test func aCallKeepsOnlyTheCapabilityFlagsItReads() {
        let call = ParkedCall(capabilities: [
            "elicitation": ["url": [:], "huge": ["x": .string(String(repeating: "z", count: 1000))]],
            "experimental": ["a": 1],
        ])
        #expect(call.capabilities == ["elicitation": ["url": [:], "huge": [:]]])
    }
}
