import Testing
import YrdenHTTPServer
import YrdenProtocol

@testable import YrdenFront

/// A call's answer is JSON when nothing has to reach the client before it, and an SSE stream (what came
/// first, then the response) as soon as something does.
@Suite struct UpgradableAnswerTests {
    private static let response = JSONRPCResponse(id: .int(1), result: ["ok": true])
    private static let asked = JSONRPCMessage.request(JSONRPCRequest(id: .string("yrden-1"), method: "roots/list"))

    @Test func aResponseFirstIsTheAnswer() async {
        let board = UpgradableAnswer.Switchboard(bound: 8)
        board.finish(Self.response)
        board.send(Self.asked)  // too late: ignored
        guard case .response(let response) = await board.first() else {
            Issue.record("expected the plain response")
            return
        }
        #expect(response == Self.response)
    }

    @Test func aMessageFirstMakesAStreamThatEndsWithTheResponse() async {
        let board = UpgradableAnswer.Switchboard(bound: 8)
        async let first = board.first()
        board.send(Self.asked)
        guard case .stream(let messages) = await first else {
            Issue.record("expected a stream")
            return
        }
        board.send(Self.asked)
        board.finish(Self.response)
        var received: [JSONRPCMessage] = []
        for await message in messages { received.append(message) }
        #expect(received == [Self.asked, Self.asked, .response(Self.response)])
    }

    @Test func aMessageBeforeAnyoneWaitsIsKept() async {
        let board = UpgradableAnswer.Switchboard(bound: 8)
        board.send(Self.asked)
        board.finish(Self.response)
        guard case .stream(let messages) = await board.first() else {
            Issue.record("expected a stream")
            return
        }
        var received: [JSONRPCMessage] = []
        for await message in messages { received.append(message) }
        #expect(received == [Self.asked, .response(Self.response)])
    }

    @Test func theRespondingHandlerAnswersJSONWhenTheCallAsksNothing() async {
        let answer = await UpgradableAnswer.respond { _ in Self.response }
        #expect(answer.status == 200)
        #expect(answer.headers["Content-Type"] == "application/json")
    }

    @Test func theRespondingHandlerStreamsWhenTheCallAsks() async {
        let answer = await UpgradableAnswer.respond { send in
            send(Self.asked)
            return Self.response
        }
        #expect(answer.headers["Content-Type"] == "text/event-stream")
    }
}
