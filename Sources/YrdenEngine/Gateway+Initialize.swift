import YrdenConfig
import YrdenProtocol
import YrdenTransport

extension Gateway {
    /// Answers `initialize`: a new session at the negotiated revision, with capabilities and instructions
    /// merged from the upstreams. Refused past `gateway.maxSessions`, or past `gateway.maxSessionsPerClient`
    /// for `client`.
    ///
    /// While the gateway is starting, the answer waits (at most `gateway.startupWait`) for every enabled
    /// server's first connection attempt: a client reads capabilities and instructions only here, once, so
    /// an early answer would hide the upstreams' extensions (MCP Apps) and instructions for good.
    package func initialize(
        _ request: JSONRPCRequest,
        scope: CatalogScope = .gateway,
        client: ClientKey? = nil
    ) async throws(SessionLimitReached) -> (DownstreamSession, JSONRPCResponse) {
        await registry.awaitStartup()
        let requested = request.params?["protocolVersion"]?.stringValue
        let version = ProtocolVersion.negotiate(requested: requested)
        let session = try sessions.create(
            protocolVersion: version,
            clientInfo: request.params?["clientInfo"],
            capabilities: request.params?["capabilities"]?.objectValue ?? [:],
            scope: scope,
            client: client
        )
        let snapshot = self.snapshot
        let result: JSONValue = [
            "protocolVersion": .string(version),
            "capabilities": .object(downstreamCapabilities(snapshot, scope: scope)),
            "serverInfo": Self.serverInfo,
            "instructions": .string(instructions(snapshot, scope: scope)),
        ]
        return (session, JSONRPCResponse(id: request.id, result: result))
    }

    /// The gateway always offers tools, prompts and resources with `listChanged` (servers come and go even
    /// when no upstream changes its own lists), plus completions and any extension an upstream declares.
    func downstreamCapabilities(_ snapshot: Snapshot, scope: CatalogScope = .gateway) -> JSONObject {
        var extensions = JSONObject()
        for spec in snapshot.specs where snapshot.includes(spec.id, in: scope) {
            guard let declared = snapshot.links[spec.id]?.handshake?.capabilities["extensions"]?.objectValue else {
                continue
            }
            for (key, value) in declared where extensions[key] == nil { extensions[key] = value }
        }
        var capabilities: JSONObject = [
            "tools": ["listChanged": true],
            "prompts": ["listChanged": true],
            "resources": ["listChanged": true, "subscribe": .bool(Self.offersSubscriptions(snapshot, scope: scope))],
            "completions": [:],
            "logging": [:],
        ]
        if !extensions.isEmpty { capabilities["extensions"] = .object(extensions) }
        return capabilities
    }

    func instructions(_ snapshot: Snapshot, scope: CatalogScope = .gateway) -> String {
        if case .server(let id) = scope {
            let own = snapshot.links[id]?.handshake?.instructions ?? ""
            return own.isEmpty ? "The MCP server \(id), through the Yrden gateway, under its own names." : own
        }
        let servers = snapshot.order.filter { snapshot.includes($0, in: scope) }
        var text =
            "Yrden gateway in front of \(servers.count) MCP servers. Tools and prompts are named "
            + "<server>\(settings.toolSeparator)<name>."
        if case .profile(let name) = scope, snapshot.profileSpecs[name]?.toolMode == .search {
            text += " Find tools with \(ToolSearchTools.searchName), then call them with \(ToolSearchTools.callName)."
        }
        for spec in snapshot.specs where servers.contains(spec.id) {
            guard let own = snapshot.links[spec.id]?.handshake?.instructions, !own.isEmpty else { continue }
            text += "\n\n## \(spec.id)\n\(own)"
        }
        return text
    }

    /// The gateway's identity, as `initialize` and every stateless result give it.
    static let serverInfo: JSONValue = [
        "name": "yrden", "title": "Yrden MCP gateway", "version": .string(version),
    ]
}
