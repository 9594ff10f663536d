import Testing

@testable import YrdenTransport

/// The pool's bookkeeping for one origin: a cap on connections, a bounded queue, reuse of the most recent idle
/// connection, places handed to waiters, idle connections expired. No I/O: connections are integers here.
@Suite struct PoolBookTests {
    typealias Book = PoolBook<Int, String>

    @Test func opensUpToTheCapThenQueuesThenRefuses() {
        var book = Book(maxConnections: 2, maxWaiters: 1)
        let got1 = book.lease(id: 1, "a")
        #expect(got1 == .open)
        let got2 = book.lease(id: 2, "b")
        #expect(got2 == .open)
        let got3 = book.lease(id: 3, "c")
        #expect(got3 == .wait)
        let got4 = book.lease(id: 4, "d")
        #expect(got4 == .refuse)
        #expect(book.open == 2)
        #expect(book.waiters.map(\.waiter) == ["c"])
    }

    @Test func aConnectionGivenBackGoesToTheFirstWaiterElseIdles() {
        var book = Book(maxConnections: 1, maxWaiters: 4)
        let got5 = book.lease(id: 1, "a")
        #expect(got5 == .open)
        let got6 = book.lease(id: 2, "b")
        #expect(got6 == .wait)
        guard case .reuse(let waiter) = book.release(10, reusable: true, now: 0) else {
            Issue.record("the waiter was not handed the connection")
            return
        }
        #expect(waiter == "b")
        guard case .none = book.release(10, reusable: true, now: 5) else {
            Issue.record("with nobody waiting, the connection should idle")
            return
        }
        #expect(book.idle.map(\.connection) == [10])
        let got7 = book.lease(id: 3, "c")
        #expect(got7 == .reuse(10))
        #expect(book.open == 1)
    }

    @Test func theMostRecentIdleConnectionIsReusedFirst() {
        var book = Book(maxConnections: 2, maxWaiters: 0)
        _ = book.lease(id: 1, "a")
        _ = book.lease(id: 2, "b")
        _ = book.release(1, reusable: true, now: 1)
        _ = book.release(2, reusable: true, now: 2)
        let got8 = book.lease(id: 3, "c")
        #expect(got8 == .reuse(2))
    }

    @Test func aBrokenConnectionsPlaceGoesToAWaiterToOpenOrIsFreed() {
        var book = Book(maxConnections: 1, maxWaiters: 4)
        _ = book.lease(id: 1, "a")
        _ = book.lease(id: 2, "b")
        guard case .open(let waiter) = book.release(10, reusable: false, now: 0) else {
            Issue.record("the waiter was not handed the place")
            return
        }
        #expect(waiter == "b")
        #expect(book.open == 1)
        guard case .none = book.giveUpPlace() else {
            Issue.record("nobody waits: the place is freed")
            return
        }
        #expect(book.open == 0)
        let got9 = book.lease(id: 3, "c")
        #expect(got9 == .open)
    }

    @Test func aWaiterTakenOutIsNotHandedAnything() {
        var book = Book(maxConnections: 1, maxWaiters: 4)
        _ = book.lease(id: 1, "a")
        _ = book.lease(id: 2, "b")
        let got10 = book.removeWaiter(2)
        #expect(got10 == "b")
        let got11 = book.removeWaiter(2)
        #expect(got11 == nil)
        guard case .none = book.release(10, reusable: true, now: 0) else {
            Issue.record("the removed waiter was handed the connection")
            return
        }
    }

    @Test func idleConnectionsExpireAndAClosedIdleOneIsForgottenOnce() {
        var book = Book(maxConnections: 3, maxWaiters: 0)
        for id in 1...3 { _ = book.lease(id: UInt64(id), "x") }
        _ = book.release(1, reusable: true, now: 10)
        _ = book.release(2, reusable: true, now: 20)
        _ = book.release(3, reusable: true, now: 30)
        let got12 = book.expired(before: 25)
        #expect(got12 == [1, 2])
        #expect(book.open == 1)
        let got13 = book.closedWhileIdle(1)
        #expect(!got13)
        let got14 = book.closedWhileIdle(3)
        #expect(got14)
        let got15 = book.closedWhileIdle(3)
        #expect(!got15)
        #expect(book.open == 0)
    }
}

/// Which endpoint URLs the pool takes, and what it sends for them.
@Suite struct UpstreamOriginTests {
    @Test func anHTTPURLGivesItsOriginAndRequestTarget() throws {
        let (origin, target) = try #require(UpstreamOrigin.parse("http://127.0.0.1:8000/mcp?x=1"))
        #expect(origin == UpstreamOrigin(secure: false, host: "127.0.0.1", port: 8000, hostHeader: "127.0.0.1:8000"))
        #expect(target == "/mcp?x=1")
    }

    @Test func defaultPortsAreLeftOutOfTheHostHeader() throws {
        let (origin, target) = try #require(UpstreamOrigin.parse("https://mcp.example.com"))
        #expect(
            origin == UpstreamOrigin(secure: true, host: "mcp.example.com", port: 443, hostHeader: "mcp.example.com")
        )
        #expect(target == "/")
        #expect(!origin.hostIsAddress)
    }

    @Test func anIPv6LiteralConnectsWithoutBracketsAndIsNamedWithThem() throws {
        let (origin, _) = try #require(UpstreamOrigin.parse("http://[::1]:9000/mcp"))
        #expect(origin.host == "::1")
        #expect(origin.hostHeader == "[::1]:9000")
        #expect(origin.hostIsAddress)
    }

    @Test func otherURLsAreLeftToTheHTTPClient() {
        #expect(UpstreamOrigin.parse("ws://127.0.0.1/ws") == nil)
        #expect(UpstreamOrigin.parse("http://user:secret@127.0.0.1/mcp") == nil)
        #expect(UpstreamOrigin.parse("not a url") == nil)
    }
}
