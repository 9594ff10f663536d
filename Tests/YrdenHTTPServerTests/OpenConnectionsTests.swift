import Testing

@testable import YrdenHTTPServer

/// The rules that close connections held without a complete request, driven with made-up times.
@Suite struct OpenConnectionsTests {
    private let start = ContinuousClock.now

    private func at(_ seconds: Double) -> ContinuousClock.Instant {
        start + .milliseconds(Int(seconds * 1000))
    }

    private func connections(timeout seconds: Int = 30) -> OpenConnections<Int> {
        OpenConnections(requestTimeout: .seconds(seconds))
    }

    @Test func aBusyConnectionIsProbedAndItsClientsLeavingReportedOncePerRequest() {
        var open = connections()
        open.opened(1, socket: 11, at: at(0))
        open.opened(2, socket: 12, at: at(0))
        #expect(open.busy().isEmpty, "no request is with the server yet")
        open.requestHandedOver(1)
        #expect(open.busy().map(\.socket) == [11])
        let first = open.clientLeft(1)
        let again = open.clientLeft(1)
        #expect(first && !again, "reported once")
        #expect(open.busy().isEmpty)
        let waiting = open.clientLeft(2)
        #expect(!waiting, "a waiting connection is the half-close rule's")
        open.requestFinished(1, at: at(1))
        open.requestHandedOver(1)
        let next = open.clientLeft(1)
        #expect(next, "the next request is reported again")
    }

    @Test func aConnectionWithoutACompleteRequestIsClosedAtTheTimeout() {
        var open = connections()
        open.opened(1, socket: 11, at: at(0))
        #expect(open.sweep(at: at(29.9), halfClosed: []).isEmpty)
        #expect(open.sweep(at: at(30), halfClosed: []) == [.init(socket: 11, reason: .requestTimedOut)])
    }

    @Test func aClosingConnectionIsNamedOnceAndForgottenWhenClosed() {
        var open = connections()
        open.opened(1, socket: 11, at: at(0))
        #expect(open.sweep(at: at(31), halfClosed: []).count == 1)
        #expect(open.sweep(at: at(32), halfClosed: []).isEmpty)
        #expect(open.waiting().isEmpty)
        open.closed(1)
        #expect(open.count == 0)
    }

    @Test func aRequestWithTheServerHasNoDeadline() {
        var open = connections()
        open.opened(1, socket: 11, at: at(0))
        open.requestHandedOver(1)
        #expect(open.sweep(at: at(3600), halfClosed: []).isEmpty)
        #expect(open.waiting().isEmpty)
    }

    @Test func theDeadlineRestartsWhenAnAnswerIsSent() {
        var open = connections()
        open.opened(1, socket: 11, at: at(0))
        open.requestHandedOver(1)
        open.requestFinished(1, at: at(100))
        #expect(open.sweep(at: at(129), halfClosed: []).isEmpty)
        #expect(open.sweep(at: at(130), halfClosed: []).map(\.reason) == [.requestTimedOut])
    }

    @Test func aHalfCloseSeenOnTwoSweepsInARowCloses() {
        var open = connections()
        open.opened(1, socket: 11, at: at(0))
        let id = open.waiting()[0].id
        #expect(open.sweep(at: at(1), halfClosed: [id]).isEmpty)
        #expect(open.sweep(at: at(2), halfClosed: [id]) == [.init(socket: 11, reason: .halfClosed)])
    }

    @Test func aHalfCloseSeenOnceThenNotIsForgotten() {
        var open = connections()
        open.opened(1, socket: 11, at: at(0))
        let id = open.waiting()[0].id
        #expect(open.sweep(at: at(1), halfClosed: [id]).isEmpty)
        #expect(open.sweep(at: at(2), halfClosed: []).isEmpty)
        #expect(open.sweep(at: at(3), halfClosed: [id]).isEmpty)
    }

    /// A client may close its side right after a complete request: once the request is with the server, the
    /// half-close no longer counts.
    @Test func aHalfCloseAfterACompleteRequestIsLeftAlone() {
        var open = connections()
        open.opened(1, socket: 11, at: at(0))
        let id = open.waiting()[0].id
        #expect(open.sweep(at: at(1), halfClosed: [id]).isEmpty)
        open.requestHandedOver(1)
        #expect(open.sweep(at: at(2), halfClosed: [id]).isEmpty)
    }

    /// A probe of a connection that closed meanwhile must not count for a new one on the same socket.
    @Test func aStaleProbeDoesNotCountForANewConnection() {
        var open = connections()
        open.opened(1, socket: 11, at: at(0))
        let stale = open.waiting()[0].id
        open.closed(1)
        open.opened(1, socket: 11, at: at(1))
        #expect(open.sweep(at: at(2), halfClosed: [stale]).isEmpty)
        #expect(open.sweep(at: at(3), halfClosed: [stale]).isEmpty)
    }

    @Test func eventsForUnknownConnectionsAreIgnored() {
        var open = connections()
        open.requestHandedOver(7)
        open.requestFinished(7, at: at(1))
        open.closed(7)
        #expect(open.count == 0)
    }

    @Test func theSweepKeepsADeadlineWithinAQuarterOfItselfAndAtMostASecondApart() {
        #expect(ConnectionSweeper.interval(for: .seconds(30)) == .seconds(1))
        #expect(ConnectionSweeper.interval(for: .seconds(2)) == .milliseconds(500))
        #expect(ConnectionSweeper.interval(for: .milliseconds(10)) == .milliseconds(50))
    }
}

/// How many connections fit in the open-file limit.
@Suite struct OpenFileLimitTests {
    @Test func aQuarterOfTheDescriptorsUpToOneThousandStayFree() {
        #expect(OpenFileLimit.connectionCapacity(openFiles: 1024) == 768)
        #expect(OpenFileLimit.connectionCapacity(openFiles: 20_000) == 18_976)
        #expect(OpenFileLimit.connectionCapacity(openFiles: 1 << 20) == (1 << 20) - 1024)
        #expect(OpenFileLimit.connectionCapacity(openFiles: 10) == 64)
    }

    @Test func theSoftLimitEndsAtTheHardLimit() {
        let change = OpenFileLimit.raiseToHardLimit()
        #expect(change.after == change.hard)
        #expect(OpenFileLimit.current == change.hard)
        #expect(change.before <= change.after)
    }
}
