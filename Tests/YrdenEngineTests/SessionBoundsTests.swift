import Testing
import YrdenProtocol
import YrdenTransport

@testable import YrdenEngine

/// What bounds the memory clients can make the gateway keep: how many sessions, for how long, and how much
/// of each client's `clientInfo`.
@Suite struct SessionBoundsTests {
    @Test func sessionsPastTheLimitAreRefusedWithTheLimitAndKeyNamed() throws {
        let store = SessionStore(limit: 2, idleTimeout: .seconds(60))
        _ = try store.create(protocolVersion: "2025-06-18", clientInfo: nil)
        let second = try store.create(protocolVersion: "2025-06-18", clientInfo: nil)
        #expect(throws: SessionLimitReached(limit: 2)) {
            try store.create(protocolVersion: "2025-06-18", clientInfo: nil)
        }
        #expect(store.count == 2)
        let error = SessionLimitReached(limit: 2).rpcError
        #expect(error.message.contains("2") && error.message.contains("gateway.maxSessions"))
        #expect(store.end(second.id))
        _ = try store.create(protocolVersion: "2025-06-18", clientInfo: nil)
        #expect(store.count == 2)
    }

    @Test func idleSessionsEndAtTheirDeadlineAndTheNextDeadlineIsReturned() throws {
        let store = SessionStore(limit: 10, idleTimeout: .seconds(30))
        let older = try store.create(protocolVersion: "2025-06-18", clientInfo: nil)
        let newer = try store.create(protocolVersion: "2025-06-18", clientInfo: nil)
        let start = older.lastSeen
        #expect(store.expireIdle(now: start + .seconds(29)).ended == 0)
        let swept = store.expireIdle(now: newer.lastSeen + .seconds(30))
        #expect(swept.ended == 2)
        #expect(store.count == 0)
        #expect(swept.next == newer.lastSeen + .seconds(60), "with none open, the next is a whole timeout away")
    }

    @Test func theNextDeadlineIsTheEarliestSessionsExpiry() throws {
        let store = SessionStore(limit: 10, idleTimeout: .seconds(30))
        let session = try store.create(protocolVersion: "2025-06-18", clientInfo: nil)
        let now = session.lastSeen + .seconds(10)
        let swept = store.expireIdle(now: now)
        #expect(swept.ended == 0)
        #expect(swept.next == session.lastSeen + .seconds(30))
    }

    @Test func aSessionWithACallRunningIsNotIdleHoweverLongTheCallTakes() throws {
        let store = SessionStore(limit: 10, idleTimeout: .seconds(30))
        let session = try store.create(protocolVersion: "2025-06-18", clientInfo: nil)
        #expect(session.begin(.int(1), handle: CallHandle()))
        let late = session.lastSeen + .seconds(3600)
        #expect(store.expireIdle(now: late).ended == 0)
        #expect(store.session(session.id) != nil)
        _ = session.finish(.int(1))
        #expect(store.expireIdle(now: late + .seconds(29)).ended == 0, "idle time counts from the last sweep")
        #expect(store.expireIdle(now: late + .seconds(30)).ended == 1)
    }

    @Test func aSessionKeepsOnlyTheIdentifyingStringsOfClientInfo() throws {
        let store = SessionStore()
        let huge = String(repeating: "y", count: 1_000_000)
        let session = try store.create(
            protocolVersion: "2025-06-18",
            clientInfo: ["name": .string(huge), "version": "1.0", "blob": .string(huge), "icons": [["src": "x"]]]
        )
        #expect(session.clientInfo["version"] == "1.0")
        #expect(session.clientInfo["blob"] == nil)
        #expect(session.clientInfo["icons"] == nil)
        let name = try #require(session.clientInfo["name"]?.stringValue)
        #expect(name.count <= ClientIdentity.maxFieldLength + 1)
    }
}
