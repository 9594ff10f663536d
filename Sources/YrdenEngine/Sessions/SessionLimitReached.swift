import YrdenProtocol

/// A new session refused because `gateway.maxSessions` sessions are open, or because its client holds
/// `gateway.maxSessionsPerClient`: a clear error instead of unbounded memory, naming the key that sets the limit.
package struct SessionLimitReached: Error, Sendable, Hashable {
    package let limit: Int
    /// The limit was the client's own, not the gateway's.
    package internal(set) var perClient = false

    package init(limit: Int, perClient: Bool = false) {
        self.limit = limit
        self.perClient = perClient
    }

    package var key: String { perClient ? "gateway.maxSessionsPerClient" : "gateway.maxSessions" }

    /// The JSON-RPC error the client sees, naming the limit and the key that sets it.
    package var rpcError: JSONRPCError {
        JSONRPCError(
            code: -32000,
            message: perClient
                ? "too many sessions of this client: it holds at most \(limit) at once (\(key)); "
                    + "end unused sessions with DELETE"
                : "too many sessions: this gateway holds at most \(limit) (\(key)); "
                    + "end unused sessions with DELETE or raise the limit",
            data: ["limit": .int(limit), "key": .string(key)]
        )
    }
}
