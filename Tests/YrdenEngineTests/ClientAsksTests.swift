import Testing
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// The gateway's requests to one client: answered by id, bounded in time and number, failed when the
/// session ends.
@Suite struct ClientAsksTests {
    @Test func theAnswerWithTheAsksIdIsReturned() async throws {
        let asks = ClientAsks()
        let sent = Recording<JSONRPCMessage>()
        async let outcome = asks.ask("roots/list", params: nil, timeout: .seconds(10)) { sent.append($0) }
        guard case .request(let request)? = await sent.first(within: .seconds(5), where: { _ in true }) else {
            Issue.record("nothing was sent")
            return
        }
        asks.resolve(JSONRPCResponse(id: .string("someone-else"), result: [:]))  // not ours: ignored
        asks.resolve(JSONRPCResponse(id: request.id, result: ["roots": []]))
        #expect(try await outcome.get() == ["roots": []])
    }

    /// On the session's clock: the ask is failed when that clock passes its deadline, not before.
    @Test func anUnansweredAskTimesOut() async {
        let time = TestClock()
        let start = time.now
        let asks = ClientAsks(time: time)
        let answer = Task { await asks.ask("roots/list", params: nil, timeout: .seconds(30)) { _ in } }
        #expect(await time.parked(until: start + .seconds(30)))
        time.advance(by: .seconds(29))
        #expect(await time.parked(until: start + .seconds(30)), "still waiting a second before its deadline")
        time.advance(by: .seconds(1))
        let outcome = await answer.value
        guard case .failure(let error) = outcome else {
            Issue.record("expected a timeout")
            return
        }
        #expect(error.message.contains("did not answer roots/list"))
    }

    @Test func theSessionsEndFailsWhatWaitsAndWhatComesLater() async {
        let asks = ClientAsks()
        let sent = Recording<JSONRPCMessage>()
        async let waiting = asks.ask("roots/list", params: nil, timeout: .seconds(10)) { sent.append($0) }
        _ = await sent.first(within: .seconds(5), where: { _ in true })
        asks.failAll(JSONRPCError(code: -32603, message: "ended"))
        #expect((try? await waiting.get()) == nil)
        let later = await asks.ask("roots/list", params: nil, timeout: .seconds(10)) { _ in }
        #expect((try? later.get()) == nil)
    }

    @Test func cancellingTheCallerTellsTheClient() async {
        let asks = ClientAsks()
        let sent = Recording<JSONRPCMessage>()
        let task = Task { await asks.ask("roots/list", params: nil, timeout: .seconds(10)) { sent.append($0) } }
        _ = await sent.first(within: .seconds(5), where: { _ in true })
        task.cancel()
        _ = await task.value
        #expect(sent.elements.last?.method == MCPMethod.cancelled)
    }
}
