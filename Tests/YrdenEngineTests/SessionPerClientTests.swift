import Testing
import YrdenProtocol

@testable import YrdenEngine

/// One client must not take the session table from the others: sessions are bounded per client under the
/// global bound.
@Suite struct SessionPerClientTests {
    private let greedy = ClientKey(authorization: "Bearer greedy", address: "127.0.0.1")
    private let polite = ClientKey(authorization: nil, address: "127.0.0.1")

    @Test func aClientPastItsBoundIsRefusedNamingTheKeyAndOthersAreNot() throws {
        let store = SessionStore(limit: 10, perClientLimit: 2, idleTimeout: .seconds(60))
        let first = try store.create(protocolVersion: "2025-06-18", clientInfo: nil, client: greedy)
        _ = try store.create(protocolVersion: "2025-06-18", clientInfo: nil, client: greedy)
        #expect(throws: SessionLimitReached(limit: 2, perClient: true)) {
            try store.create(protocolVersion: "2025-06-18", clientInfo: nil, client: greedy)
        }
        let error = SessionLimitReached(limit: 2, perClient: true).rpcError
        #expect(
            error.message.contains("gateway.maxSessionsPerClient")
                && error.data?["key"] == "gateway.maxSessionsPerClient"
        )
        // Another client, and a client the bound does not apply to (stdio), are not affected.
        _ = try store.create(protocolVersion: "2025-06-18", clientInfo: nil, client: polite)
        _ = try store.create(protocolVersion: "2025-06-18", clientInfo: nil)
        #expect(store.count(of: greedy!) == 2 && store.count(of: polite!) == 1)
        // Ending one of its sessions gives the client its place back.
        #expect(store.end(first.id))
        _ = try store.create(protocolVersion: "2025-06-18", clientInfo: nil, client: greedy)
    }

    @Test func expiredSessionsGiveTheirClientItsPlacesBack() throws {
        let store = SessionStore(limit: 10, perClientLimit: 1, idleTimeout: .seconds(30))
        let session = try store.create(protocolVersion: "2025-06-18", clientInfo: nil, client: greedy)
        #expect(store.expireIdle(now: session.lastSeen + .seconds(31)).ended == 1)
        #expect(store.count(of: greedy!) == 0)
        _ = try store.create(protocolVersion: "2025-06-18", clientInfo: nil, client: greedy)
    }

    @Test func theGlobalBoundStillHolds() throws {
        let store = SessionStore(limit: 1, perClientLimit: 5, idleTimeout: .seconds(30))
        _ = try store.create(protocolVersion: "2025-06-18", clientInfo: nil, client: greedy)
        #expect(throws: SessionLimitReached(limit: 1)) {
            try store.create(protocolVersion: "2025-06-18", clientInfo: nil, client: polite)
        }
    }

    @Test func aCredentialIsNeverKeptAsItIs() {
        let key = ClientKey(authorization: "Bearer secret-token", address: "10.0.0.1")
        #expect(key?.description.contains("secret") == false)
        #expect(key != ClientKey(authorization: "Bearer other", address: "10.0.0.1"))
        #expect(ClientKey(authorization: nil, address: "10.0.0.1")?.description == "address 10.0.0.1")
        #expect(ClientKey(authorization: nil, address: nil) == nil)
    }
}
