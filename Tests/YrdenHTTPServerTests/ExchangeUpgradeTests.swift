import Testing

@testable import YrdenHTTPServer

/// A `101` answer's exchange, event by event: the answer queued, the socket handed over once, and shutdown
/// telling the upgrade's closure to end.
@Suite struct ExchangeUpgradeTests {
    /// An exchange whose `101` answer has been delivered by its handler.
    private func answered() -> ExchangeState {
        var state = ExchangeState(maxBodyBytes: 100)
        _ = state.finalCall()
        _ = state.deliver(HTTPResponse(status: 101, headers: [("Upgrade", "websocket")], body: .upgrade { _ in }))
        return state
    }

    @Test func theAnswerIsQueuedThenTheSocketTakenOnce() {
        var state = answered()
        guard case .queue(let response) = state.finalCall() else {
            Issue.record("expected the 101 to be queued")
            return
        }
        #expect(response.status == 101)
        let first = state.upgraded()
        let second = state.upgraded()
        #expect(first)
        #expect(!second, "a second hand-over is refused")
        #expect(!state.writesClosed)
        let again = state.finalCall()
        #expect(again.closes)
    }

    @Test func aSocketHandedOverForAnAnswerThatWasNoUpgradeIsRefused() {
        var state = ExchangeState(maxBodyBytes: 100)
        _ = state.finalCall()
        _ = state.deliver(HTTPResponse(status: 200, body: .bytes([1])))
        _ = state.finalCall()
        let taken = state.upgraded()
        #expect(!taken)
    }

    @Test func shutdownClosesWritesSoTheClosureIsCancelled() {
        var state = answered()
        _ = state.finalCall()
        _ = state.upgraded()
        let resume = state.endStream(serverStopping: true)
        #expect(!resume, "nothing to resume: libmicrohttpd suspended it itself")
        #expect(state.writesClosed)
    }

    @Test func shutdownBeforeTheHeadIsSentClosesWritesToo() {
        var state = answered()
        let resume = state.abort()
        #expect(!resume)
        #expect(state.writesClosed)
        guard case .queue = state.finalCall() else {
            Issue.record("the 101 is still queued")
            return
        }
        let taken = state.upgraded()
        #expect(taken, "the socket still comes, to be closed at once by the cancelled closure")
    }
}

extension ExchangeState.FinalCallAction {
    fileprivate var closes: Bool {
        if case .close = self { return true }
        return false
    }
}
