import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `/servers/{id}/tools|prompts|resources` (one upstream's own lists) and `/tools` (the aggregate). Both grow
/// with the catalog: made off the event loop and kept while unchanged (``HeavyReads``).
extension AdminAPI {
    /// The server's lists as it sent them, bare names and all; while it is down, those of its last connection.
    ///
    /// With an `ETag` made from the items' digests: a client that sends it back in `If-None-Match` (the
    /// console, before each call an app page makes) is answered `304` while the lists are unchanged, without
    /// a byte of the catalog built or sent.
    func listServerCatalog(
        _ id: String,
        kinds: [ServerCatalog.Kind],
        _ request: HTTPRequest
    ) async throws(AdminProblem) -> HTTPResponse {
        _ = try status(of: id)
        let catalog = gateway.registry.serverCatalog(of: id) ?? ServerCatalog()
        let list: HeavyReads.List =
            switch kinds.first {
            case .tools: .serverTools
            case .prompts: .serverPrompts
            default: .serverResources
            }
        let digests = kinds.map { catalog.digests($0) }
        let etag = CatalogTag.of(digests)
        if CatalogTag.matches(etag, request.headers["If-None-Match"]) {
            heavyReads.count(list, "not_modified")
            return HTTPResponse(status: 304, headers: ["ETag": etag])
        }
        return await heavyReads.answer(
            list,
            key: "servers/\(id)/\(list.rawValue)",
            from: .digests(digests),
            headers: ["ETag": etag]
        ) {
            var body = JSONObject()
            for kind in kinds {
                body[kind.resultKey] = .array(catalog[kind].map(JSONValue.object))
            }
            return .object(body)
        }
    }

    /// Every tool `/mcp` offers, in `tools/list` order, each with the server its calls go to and the name that
    /// server knows it by (a long or unsafe name is shortened on `/mcp`; this is the mapping), and the clashes
    /// the merge found.
    func listTools() async -> HTTPResponse {
        let catalog = gateway.registry.catalog
        return await heavyReads.answer(.tools, key: "tools", from: .object(catalog)) {
            let tools = catalog.tools.compactMap { tool -> JSONValue? in
                guard let name = tool["name"]?.stringValue, let route = catalog.toolRoutes[name] else { return nil }
                return ["server": .string(route.server), "upstreamName": .string(route.name), "tool": tool]
            }
            return ["tools": .array(tools), "conflicts": .array(catalog.conflicts.map(JSONValue.string))]
        }
    }
}
