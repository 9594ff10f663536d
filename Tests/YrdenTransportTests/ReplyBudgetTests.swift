import Synchronization
import Testing
import YrdenProtocol

@testable import YrdenTransport

/// Answers to an HTTP server's own requests are POSTs; a server that floods requests gets at most
/// ``ReplyBudget/maxInFlight`` of them at once, and the rest are dropped, counted and logged.
@Suite struct ReplyBudgetTests {
    @Test func answersPastTheBoundAreDroppedUntilOneFinishes() {
        let lines = Mutex<[String]>([])
        let budget = ReplyBudget(log: { line in lines.withLock { $0.append(line) } })
        for _ in 0..<ReplyBudget.maxInFlight { #expect(budget.tryAcquire()) }
        #expect(!budget.tryAcquire())
        #expect(!budget.tryAcquire())
        #expect(lines.withLock { $0.count } == 2)
        #expect(lines.withLock { $0.first?.hasPrefix("dropped 1 answers") } == true)
        budget.release()
        #expect(budget.tryAcquire())
        #expect(!budget.tryAcquire())
    }

    @Test func onlyAnswersCountAgainstIt() {
        let reply = JSONRPCMessage.response(JSONRPCResponse(id: .int(7), result: [:])).serialized()
        let request = JSONRPCMessage.request(JSONRPCRequest(id: .int(1), method: "tools/list", params: nil))
            .serialized()
        let notification = JSONRPCMessage.notification(JSONRPCNotification(method: MCPMethod.cancelled))
            .serialized()
        #expect(ReplyBudget.isReply(OutboundFrame(reply)))
        #expect(!ReplyBudget.isReply(OutboundFrame(request)))
        #expect(!ReplyBudget.isReply(OutboundFrame(notification)))
    }
}
