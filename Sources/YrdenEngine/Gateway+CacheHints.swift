import YrdenProtocol
import YrdenTransport

extension Gateway {
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
    func cacheHint(for method: String, _ snapshot: Snapshot, scope: CatalogScope = .gateway) -> CacheHint {
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
