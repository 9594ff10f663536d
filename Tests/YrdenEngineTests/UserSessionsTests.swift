import Synchronization
import Testing
import YrdenTesting
import YrdenTransport

@testable import YrdenEngine

/// A `perUser` server's users' own sessions: one per user, opened once, bounded by closing the least recently
/// used one that no call holds, closed when idle and all at once with the connection.
@Suite struct UserSessionsTests {
    /// A channel with no peer that announces its close under the user it was opened for.
    final class ClosingChannel: UpstreamChannel {
        let user: String
        let closes: AsyncStream<String>.Continuation

        init(user: String, closes: AsyncStream<String>.Continuation) {
            self.user = user
            self.closes = closes
        }

        func send(_ frame: [UInt8]) throws(UpstreamError) {}
        func close() async { closes.yield(user) }
    }

    /// The users sessions were opened for, in order.
    final class Opened: Sendable {
        private let names = Mutex<[String]>([])
        func append(_ user: String) { names.withLock { $0.append(user) } }
        var users: [String] { names.withLock { $0 } }
    }

    /// A table over channels that report their close on the returned stream; the opener counts its calls.
    static func table(
        maxUsers: Int,
        clock: TestClock
    ) -> (UserSessions, AsyncStream<String>, Opened) {
        let (closed, closes) = AsyncStream.makeStream(of: String.self)
        let opened = Opened()
        let shared = try! UpstreamClient(open: { _ in ClosingChannel(user: "shared", closes: closes) }, log: { _ in })
        let table = UserSessions(
            shared: shared,
            limits: UserSessionLimits(maxUsers: maxUsers, idleTimeout: .seconds(300)),
            time: clock
        ) { user throws(UpstreamError) in
            opened.append(user)
            return try UpstreamClient(open: { _ in ClosingChannel(user: user, closes: closes) }, log: { _ in })
        }
        return (table, closed, opened)
    }

    /// Uses `user`'s session for one call.
    static func call(_ table: UserSessions, _ user: String, clock: TestClock) async throws {
        try await table.lease(user).release()
        clock.advance(by: .seconds(1))
    }

    @Test func aUsersCallsShareTheSessionOpenedForTheirFirst() async throws {
        let clock = TestClock()
        let (table, _, opened) = Self.table(maxUsers: 4, clock: clock)
        let first = try await table.lease("alice")
        let second = try await table.lease("alice")
        #expect(first.client === second.client)
        let bob = try await table.lease("bob")
        #expect(bob.client !== first.client)
        #expect(opened.users == ["alice", "bob"])
        await table.closeAll()
    }

    @Test func pastTheBoundTheLeastRecentlyUsedSessionIsClosed() async throws {
        let clock = TestClock()
        let (table, closed, opened) = Self.table(maxUsers: 2, clock: clock)
        try await Self.call(table, "alice", clock: clock)
        try await Self.call(table, "bob", clock: clock)
        try await Self.call(table, "alice", clock: clock)
        try await Self.call(table, "carol", clock: clock)  // bob's is the least recently used
        var closes = closed.makeAsyncIterator()
        #expect(await closes.next() == "bob")
        #expect(table.count == 2)
        try await Self.call(table, "bob", clock: clock)  // opened again; alice's is now the oldest
        #expect(await closes.next() == "alice")
        #expect(opened.users == ["alice", "bob", "carol", "bob"])
        await table.closeAll()
    }

    @Test func aSessionWithACallInFlightIsNeverClosedForTheBoundANewUserIsRefusedInstead() async throws {
        let clock = TestClock()
        let (table, closed, _) = Self.table(maxUsers: 1, clock: clock)
        let alice = try await table.lease("alice")
        await #expect(throws: UpstreamError.self) { try await table.lease("bob") }
        alice.release()
        _ = try await table.lease("bob")
        var closes = closed.makeAsyncIterator()
        #expect(await closes.next() == "alice")
        await table.closeAll()
    }

    @Test func idleSessionsAreClosedAfterTheIdleTimeout() async throws {
        let clock = TestClock()
        let (table, closed, _) = Self.table(maxUsers: 4, clock: clock)
        let expiry = Task { await table.expireIdle() }
        try await Self.call(table, "alice", clock: clock)
        #expect(await clock.parked(1))
        clock.advance(by: .seconds(300))
        var closes = closed.makeAsyncIterator()
        #expect(await closes.next() == "alice")
        #expect(table.count == 0)
        expiry.cancel()
        await expiry.value
        await table.closeAll()
    }

    @Test func closingTheTableClosesEverySessionAndRefusesNewOnes() async throws {
        let clock = TestClock()
        let (table, closed, _) = Self.table(maxUsers: 4, clock: clock)
        try await Self.call(table, "alice", clock: clock)
        try await Self.call(table, "bob", clock: clock)
        await table.closeAll()
        var closes = closed.makeAsyncIterator()
        let first = await closes.next()
        let second = await closes.next()
        #expect(Set([first, second]) == ["alice", "bob"])
        await #expect(throws: UpstreamError.self) { try await table.lease("carol") }
    }

    @Test func aDiscardedUsersNextCallOpensANewSession() async throws {
        let clock = TestClock()
        let (table, closed, opened) = Self.table(maxUsers: 4, clock: clock)
        try await Self.call(table, "alice", clock: clock)
        table.discard("alice")
        var closes = closed.makeAsyncIterator()
        #expect(await closes.next() == "alice")
        try await Self.call(table, "alice", clock: clock)
        #expect(opened.users == ["alice", "alice"])
        await table.closeAll()
    }

    @Test func aSessionWaitingForAnAnswerNoCallHoldsIsNotClosedForTheBound() async throws {
        // A call that runs parked goes on in the user's session after the request that started it was answered.
        let clock = TestClock()
        let (table, closed, _) = Self.table(maxUsers: 1, clock: clock)
        let alice = try await table.lease("alice")
        let parked = Task {
            try await alice.client.request("tools/call", params: nil, options: RequestOptions(timeout: .seconds(60)))
        }
        while alice.client.requestsInFlight == 0 { await Task.yield() }
        alice.release()
        await #expect(throws: UpstreamError.self) { try await table.lease("bob") }
        parked.cancel()
        _ = await parked.result
        _ = try await table.lease("bob")
        var closes = closed.makeAsyncIterator()
        #expect(await closes.next() == "alice")
        await table.closeAll()
    }
}
