import YrdenProtocol

/// `initialize` refused because `gateway.maxSessions` sessions are open: a clear error instead of unbounded memory.
package struct SessionLimitReached: Error, Sendable, Hashable {
    package let limit: Int

    /// The JSON-RPC error the client sees, naming the limit and the key that sets it.
    package var rpcError: JSONRPCError {
        JSONRPCError(
            code: -32000,
            message:
                "too many sessions: this gateway holds at most \(limit) (gateway.maxSessions); "
                + "end unused sessions with DELETE or raise the limit",
            data: ["limit": .int(limit), "key": "gateway.maxSessions"]
        )
    }
}
