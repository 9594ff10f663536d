import YrdenConfig
import YrdenProtocol
import YrdenTransport

extension Gateway {
    /// Answers `initialize`: a new session at the negotiated revision, with capabilities and instructions
    /// merged from the upstreams. Refused past `gateway.maxSessions`, or past `gateway.maxSessionsPerClient`
    /// for `client`. The session belongs to `caller`.
    ///
    /// While the gateway is starting, the answer waits (at most `gateway.startupWait`) for every enabled
    /// server's first connection attempt: a client reads capabilities and instructions only here, once, so
    /// an early answer would hide the upstreams' extensions (MCP Apps) and instructions for good.
    package func initialize(
        _ request: JSONRPCRequest,
        scope: CatalogScope = .gateway,
        client: ClientKey? = nil,
        caller: Caller = .anonymous
    ) async throws(SessionLimitReached) -> (DownstreamSession, JSONRPCResponse) {
        await registry.awaitStartup()
        let requested = request.params?["protocolVersion"]?.stringValue
        let version = ProtocolVersion.negotiate(requested: requested)
        let session = try sessions.create(
            protocolVersion: version,
            clientInfo: request.params?["clientInfo"],
            capabilities: request.params?["capabilities"]?.objectValue ?? [:],
            scope: scope,
            client: client,
            caller: caller
        )
        let snapshot = self.snapshot
        let result: JSONValue = [
            "protocolVersion": .string(version),
            "capabilities": .object(views.downstreamCapabilities(snapshot, scope: scope)),
            "serverInfo": Self.serverInfo,
            "instructions": .string(views.instructions(snapshot, scope: scope)),
        ]
        return (session, JSONRPCResponse(id: request.id, result: result))
    }

    /// The gateway's identity, as `initialize` and every stateless result give it.
    static let serverInfo: JSONValue = [
        "name": "yrden", "title": "Yrden MCP gateway", "version": .string(version),
    ]
}
