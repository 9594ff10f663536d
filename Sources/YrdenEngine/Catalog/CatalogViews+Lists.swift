import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// A scope's list pages, and what a client is told of the catalog besides its lists.
extension CatalogViews {
    /// One page of a merged list, with its serialization: made once per catalog generation and page, and
    /// shared by every client that lists (a profile's pages likewise, per profile). A client of one server
    /// alone gets that server's list, serialized with its answer.
    func listPage(
        _ kind: ServerCatalog.Kind,
        cursor: JSONValue?,
        scope: CatalogScope
    ) async throws(JSONRPCError) -> (value: JSONValue, encoded: EncodedJSON?) {
        // The first lists wait for the servers' first attempts, so a client started with the gateway
        // does not keep an empty or partial catalog.
        await registry.awaitStartup()
        let snapshot = registry.snapshot
        switch scope {
        case .gateway: break
        case .server(let id):
            let items = scopedList(kind, of: id, snapshot)
            let page = try Pagination.page(items, key: kind.resultKey, cursor: cursor, generation: snapshot.generation)
            return (page, nil)
        case .profile(let name):
            let items = snapshot.profiles[name]?[kind] ?? []
            let page = try Pagination.page(items, key: kind.resultKey, cursor: cursor, generation: snapshot.generation)
            let encoded = listPages.encoded(
                page,
                kind: kind,
                cursor: cursor?.stringValue,
                generation: snapshot.generation,
                profile: name
            )
            return (page, encoded)
        }
        let page = try Pagination.page(
            snapshot.catalog[kind],
            key: kind.resultKey,
            cursor: cursor,
            generation: snapshot.generation
        )
        let encoded = listPages.encoded(page, kind: kind, cursor: cursor?.stringValue, generation: snapshot.generation)
        return (page, encoded)
    }

    /// The gateway always offers tools, prompts and resources with `listChanged` (servers come and go even
    /// when no upstream changes its own lists), plus completions and any extension an upstream declares.
    func downstreamCapabilities(_ snapshot: ServerRegistry.Snapshot, scope: CatalogScope = .gateway) -> JSONObject {
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
            "resources": [
                "listChanged": true, "subscribe": .bool(Dispatcher.offersSubscriptions(snapshot, scope: scope)),
            ],
            "completions": [:],
            "logging": [:],
        ]
        if !extensions.isEmpty { capabilities["extensions"] = .object(extensions) }
        return capabilities
    }

    func instructions(_ snapshot: ServerRegistry.Snapshot, scope: CatalogScope = .gateway) -> String {
        if case .server(let id) = scope {
            let own = snapshot.links[id]?.handshake?.instructions ?? ""
            return own.isEmpty ? "The MCP server \(id), through the Yrden gateway, under its own names." : own
        }
        let servers = snapshot.order.filter { snapshot.includes($0, in: scope) }
        var text =
            "Yrden gateway in front of \(servers.count) MCP servers. Tools and prompts are named "
            + "<server>\(separator)<name>."
        if case .profile(let name) = scope, snapshot.profileSpecs[name]?.toolMode == .search {
            text += " Find tools with \(ToolSearchTools.searchName), then call them with \(ToolSearchTools.callName)."
        }
        for spec in snapshot.specs where servers.contains(spec.id) {
            guard let own = snapshot.links[spec.id]?.handshake?.instructions, !own.isEmpty else { continue }
            text += "\n\n## \(spec.id)\n\(own)"
        }
        return text
    }

    /// `server/discover`: what `initialize` tells a session, plus every revision the gateway serves.
    func discoverResult(_ snapshot: ServerRegistry.Snapshot, scope: CatalogScope = .gateway) -> JSONValue {
        [
            "supportedVersions": .array(ProtocolVersion.served.map { .string($0) }),
            "capabilities": .object(downstreamCapabilities(snapshot, scope: scope)),
            "instructions": .string(instructions(snapshot, scope: scope)),
        ]
    }

    /// How long the gateway's merged list may be reused when only handshake-era servers stand behind it, each
    /// announcing changes to that list: the gateway hears every change and tells listening clients, so a short
    /// freshness is honest. A server that announces nothing makes the list stale at once.
    static let announcedListTTLms = 30_000

    /// The kinds a cacheable method's answer is made of.
    static func listKinds(of method: String) -> [ServerCatalog.Kind] {
        switch method {
        case MCPMethod.serverDiscover: ServerCatalog.Kind.allCases
        default: ServerCatalog.Kind.allCases.filter { $0.method == method }
        }
    }

    /// What the gateway's answer to `method` can promise (2026-07-28 `ttlMs`/`cacheScope`): no more than any
    /// connected server behind it promised for its part. A 2026-07-28 server's own hint counts as it came; a
    /// handshake-era server's part is fresh for ``announcedListTTLms`` when it declares `listChanged` for the
    /// list and not at all otherwise, and never public.
    func cacheHint(for method: String, _ snapshot: ServerRegistry.Snapshot, scope: CatalogScope = .gateway) -> CacheHint
    {
        let kinds = Self.listKinds(of: method)
        guard !kinds.isEmpty else { return .none }  // not a list: a call or a read walks no server
        var parts: [CacheHint] = []
        for id in snapshot.order where snapshot.includes(id, in: scope) {
            guard let link = snapshot.links[id], link.state.isConnected, let handshake = link.handshake,
                let catalog = link.catalog
            else { continue }
            for kind in kinds {
                guard let declared = handshake.capabilities[kind.capability]?.objectValue else { continue }
                if let hint = catalog.cacheHints[kind] {
                    parts.append(hint)
                } else {
                    let announces = declared["listChanged"]?.boolValue == true
                    parts.append(CacheHint(ttlMs: announces ? Self.announcedListTTLms : 0, isPublic: false))
                }
            }
        }
        return CacheHint.merged(parts)
    }
}
