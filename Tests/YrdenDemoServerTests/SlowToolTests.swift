import Testing
import YrdenDemoServer
import YrdenProtocol

@Suite(.timeLimit(.minutes(1))) struct SlowToolTests {
    private func slowParams(_ arguments: JSONValue, token: JSONValue? = nil) -> JSONValue {
        var params: JSONObject = ["name": "slow", "arguments": arguments]
        if let token { params["_meta"] = ["progressToken": token] }
        return .object(params)
    }

    private func progress(_ messages: [JSONRPCMessage]) -> [JSONValue] {
        messages.compactMap { message in
            guard case .notification(let note) = message, note.method == MCPMethod.progress else { return nil }
            return note.params
        }
    }

    private func responses(_ messages: [JSONRPCMessage]) -> [JSONRPCResponse] {
        messages.compactMap { message in
            guard case .response(let response) = message else { return nil }
            return response
        }
    }

    @Test(arguments: [JSONValue.string("tok-1"), .int(77)])
    func slowSendsProgressWithTheCallersTokenThenFinishes(_ token: JSONValue) async throws {
        let (core, sink) = makeCore()
        async let worker: Void = core.runSlowCalls()
        let clock = ContinuousClock()
        let start = clock.now
        #expect(core.request(MCPMethod.toolsCall, slowParams(["seconds": 0.3], token: token), id: .int(9)) == nil)
        let messages = await sink.messages(untilResponseTo: .int(9))
        let elapsed = clock.now - start
        core.finishInput()
        await worker

        let notes = progress(messages)
        #expect(notes.count == 10)
        for (index, note) in notes.enumerated() {
            #expect(note["progressToken"] == token)
            #expect(note["progress"] == .int(index + 1))
            #expect(note["total"] == 10)
            #expect(note["message"] == .string("step \(index + 1) of 10"))
        }
        let response = try #require(responses(messages).last)
        #expect(response.id == .int(9))
        #expect(try response.outcome.get()["content"] == [["type": "text", "text": "done after 0.3 s"]])
        #expect(elapsed >= .milliseconds(290))
    }

    @Test func withoutATokenThereIsNoProgress() async throws {
        let (core, sink) = makeCore()
        async let worker: Void = core.runSlowCalls()
        #expect(core.request(MCPMethod.toolsCall, slowParams(["seconds": 0.05, "steps": 5]), id: .int(1)) == nil)
        let messages = await sink.messages(untilResponseTo: .int(1))
        core.finishInput()
        await worker
        #expect(progress(messages).isEmpty)
        #expect(
            try responses(messages).first?.outcome.get()["content"] == [["type": "text", "text": "done after 0.05 s"]]
        )
    }

    @Test func otherCallsAreAnsweredWhileSlowRuns() async throws {
        let (core, sink) = makeCore()
        async let worker: Void = core.runSlowCalls()
        #expect(core.request(MCPMethod.toolsCall, slowParams(["seconds": 0.6, "steps": 1]), id: .int(1)) == nil)
        #expect(core.request(MCPMethod.toolsCall, slowParams(["seconds": 0.1, "steps": 1]), id: .int(2)) == nil)
        let echo = try #require(core.request(MCPMethod.toolsCall, callParams("echo", ["message": "x"]), id: .int(3)))
        #expect(echo["result"]?["structuredContent"] == ["message": "x"])
        let messages = await sink.messages(untilResponseTo: .int(1))
        core.finishInput()
        await worker
        #expect(responses(messages).map(\.id) == [.int(2), .int(1)])
    }

    @Test func cancellationStopsTheCallAndSuppressesItsResponse() async throws {
        let (core, sink) = makeCore()
        async let worker: Void = core.runSlowCalls()
        #expect(
            core.request(MCPMethod.toolsCall, slowParams(["seconds": 5, "steps": 50], token: "c"), id: .int(1)) == nil
        )
        _ = await sink.firstNotification { $0.method == MCPMethod.progress }
        core.notify(MCPMethod.cancelled, ["requestId": 1, "reason": "user gave up"])
        let progressAtCancel = progress(sink.all).count

        #expect(core.request(MCPMethod.toolsCall, slowParams(["seconds": 0.3, "steps": 1]), id: .int(2)) == nil)
        _ = await sink.messages(untilResponseTo: .int(2))
        #expect(progress(sink.all).count == progressAtCancel, "progress continued after the cancellation")
        #expect(!responses(sink.all).contains { $0.id == .int(1) })
        let status = try core.result(MCPMethod.resourcesRead, ["uri": "demo://status"])
        let text = try #require(status["contents"]?.arrayValue?.first?["text"]?.stringValue)
        #expect(try JSONValue.parse(text)["runningSlowCalls"] == 0)
        core.finishInput()
        await worker
    }

    @Test func cancellationBeforeTheCallStartsAlsoSuppressesIt() async throws {
        let (core, sink) = makeCore()
        #expect(core.request(MCPMethod.toolsCall, slowParams(["seconds": 0.2]), id: .string("a")) == nil)
        core.notify(MCPMethod.cancelled, ["requestId": "a"])
        async let worker: Void = core.runSlowCalls()
        #expect(core.request(MCPMethod.toolsCall, slowParams(["seconds": 0.3, "steps": 1]), id: .string("b")) == nil)
        _ = await sink.messages(untilResponseTo: .string("b"))
        #expect(responses(sink.all).map(\.id) == [.string("b")])
        core.finishInput()
        await worker
    }

    @Test func unknownOrMalformedCancellationsAreIgnored() {
        let (core, _) = makeCore()
        core.notify(MCPMethod.cancelled, ["requestId": 12345])
        core.notify(MCPMethod.cancelled, ["requestId": nil])
        core.notify(MCPMethod.cancelled)
    }

    @Test func aRunningIDCannotBeReused() async throws {
        let (core, _) = makeCore()
        async let worker: Void = core.runSlowCalls()
        #expect(core.request(MCPMethod.toolsCall, slowParams(["seconds": 5]), id: .int(4)) == nil)
        let reply = try #require(core.request(MCPMethod.toolsCall, slowParams(["seconds": 1]), id: .int(4)))
        #expect(reply["error"]?["code"] == -32600)
        core.finishInput()
        await worker
    }

    @Test func endOfInputStopsRunningCallsWithoutAnswering() async throws {
        let (core, sink) = makeCore()
        async let worker: Void = core.runSlowCalls()
        #expect(
            core.request(MCPMethod.toolsCall, slowParams(["seconds": 60, "steps": 600], token: 1), id: .int(1)) == nil
        )
        _ = await sink.firstNotification { $0.method == MCPMethod.progress }
        core.finishInput()
        await worker
        // Stopped part-way: not every step reported, and no answer sent.
        #expect(progress(sink.all).count < 600)
        #expect(responses(sink.all).isEmpty)
    }
}
