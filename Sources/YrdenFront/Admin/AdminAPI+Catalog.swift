import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `/servers/{id}/tools|prompts|resources` (one upstream's own lists) and `/tools` (the aggregate).
extension AdminAPI {
    /// The server's lists as it sent them, bare names and all; while it is down, those of its last connection.
    func listServerCatalog(_ id: String, kinds: [ServerCatalog.Kind]) throws(AdminProblem) -> HTTPResponse {
        _ = try status(of: id)
        let catalog = gateway.snapshot.links[id]?.catalog ?? ServerCatalog()
        var body = JSONObject()
        for kind in kinds {
            body[kind.resultKey] = .array(catalog[kind].map(JSONValue.object))
        }
        return FrontResponses.json(200, .object(body))
    }

    /// Every tool `/mcp` offers, in `tools/list` order, each with the server its calls go to and the name that
    /// server knows it by (a long or unsafe name is shortened on `/mcp`; this is the mapping), and the clashes
    /// the merge found.
    func listTools() -> HTTPResponse {
        let catalog = gateway.snapshot.catalog
        let tools = catalog.tools.compactMap { tool -> JSONValue? in
            guard let name = tool["name"]?.stringValue, let route = catalog.toolRoutes[name] else { return nil }
            return ["server": .string(route.server), "upstreamName": .string(route.name), "tool": tool]
        }
        return FrontResponses.json(
            200,
            ["tools": .array(tools), "conflicts": .array(catalog.conflicts.map(JSONValue.string))]
        )
    }
}
