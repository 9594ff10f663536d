import Testing
import YrdenEngine

@testable import YrdenFront

/// The bound on open downstream WebSockets: in all and per client, each counted socket freed when its lease goes.
@Suite struct OpenWebSocketsTests {
    private let greedy = ClientKey(authorization: nil, address: "10.0.0.1")
    private let polite = ClientKey(authorization: nil, address: "10.0.0.2")

    @Test func oneClientCannotTakeEverySocket() throws {
        let sockets = OpenWebSockets(limit: 3, perClientLimit: 2)
        let first = try sockets.lease(greedy).get()
        let second = try sockets.lease(greedy).get()
        #expect(throws: OpenWebSockets.Refusal.self) { try sockets.lease(greedy).get() }
        let other = try sockets.lease(polite).get()
        #expect(sockets.count == 3)
        withExtendedLifetime((first, second, other)) {}
    }

    @Test func theLimitInAllHolds() throws {
        let sockets = OpenWebSockets(limit: 1)
        let only = try sockets.lease(nil).get()
        guard case .failure(let refusal) = sockets.lease(polite) else {
            Issue.record("a second socket was counted past the limit")
            return
        }
        #expect(refusal.reason.contains("gateway.maxSessions"))
        withExtendedLifetime(only) {}
    }

    @Test func aDroppedLeaseFreesItsPlace() throws {
        let sockets = OpenWebSockets(limit: 1, perClientLimit: 1)
        var lease: OpenWebSockets.Lease? = try sockets.lease(greedy).get()
        #expect(sockets.count == 1)
        lease = nil
        #expect(lease == nil)
        #expect(sockets.count == 0)
        _ = try sockets.lease(greedy).get()
    }
}
