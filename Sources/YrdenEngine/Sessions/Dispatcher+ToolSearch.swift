import YrdenConfig
import YrdenProtocol
import YrdenSearch

/// A profile in search mode: `search_tools` is answered here from the shared index (restricted to the
/// profile's tools, under the profile's names); `call_tool` is unwrapped into the call it carries and routed
/// like any call of that profile.
extension Dispatcher {
    func searchModeCall(
        _ name: String,
        _ request: JSONRPCRequest,
        _ view: ProfileView,
        _ context: ForwardContext
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        let arguments = request.params?["arguments"]
        switch name {
        case ToolSearchTools.searchName:
            guard let query = arguments?["query"]?.stringValue else {
                throw .invalidParams("\(name) needs arguments.query, a string")
            }
            let limit = min(
                max(arguments?["limit"]?.intValue ?? ToolSearchTools.defaultLimit, 1),
                ToolSearchTools.maxLimit
            )
            return .success(try await searchResult(query, limit: limit, view))
        case ToolSearchTools.callName:
            guard let inner = arguments?["name"]?.stringValue else {
                throw .invalidParams("\(name) needs arguments.name, the name \(ToolSearchTools.searchName) gave")
            }
            guard let route = view.toolRoutes[inner] else {
                throw .invalidParams(
                    "Unknown tool: \(inner) (profile \(view.spec.name)); find it with \(ToolSearchTools.searchName)"
                )
            }
            var params = request.params?.objectValue ?? [:]
            params["arguments"] = arguments?["arguments"] ?? [:]
            let unwrapped = JSONRPCRequest(id: request.id, method: request.method, params: .object(params))
            return try await forward(unwrapped, renamedTo: route, context, isToolCall: true)
        default:
            throw .invalidParams(
                "Unknown tool: \(name); profile \(view.spec.name) offers \(ToolSearchTools.searchName) and "
                    + "\(ToolSearchTools.callName)"
            )
        }
    }

    /// The best matches as a tool result: their definitions (the profile's names) as structured content, and as
    /// text for a host that shows only text to its model. Never empty while the profile has tools: when no tool
    /// matches the query's words, the nearest ones come back, and failing those the profile's first tools, both
    /// marked weak (`"match": "weak"` and a sentence before the list), so the agent judges them instead of
    /// giving up on a tool that exists.
    private func searchResult(
        _ query: String,
        limit: Int,
        _ view: ProfileView
    ) async throws(JSONRPCError) -> JSONValue {
        // Off the event loop, a few at a time: a long query over a large catalog takes tens of milliseconds.
        let found: SearchResults
        do {
            found = try await registry.searchIndex.search(query, limit: limit, time: connector.time) { key in
                view.toolNames[Route(server: key.server, name: key.name)] != nil
            }
        } catch {
            throw error.rpcError
        }
        var tools: [JSONValue] = found.hits.compactMap { hit in
            view.toolNames[Route(server: hit.key.server, name: hit.key.name)].flatMap { listing(of: $0, view) }
        }
        let quoted = "\"\(query.prefix(200))\""
        var weak = found.weak
        var text = weak ? "No tool matches \(quoted) well; the nearest (weak matches):\n" : ""
        if tools.isEmpty {
            weak = true
            tools = view.visibleTools.prefix(limit).compactMap {
                $0["name"]?.stringValue.flatMap { listing(of: $0, view) }
            }
            text =
                tools.isEmpty
                ? "Profile \(view.spec.name) has no tools yet."
                : "No tool matches \(quoted); some of the profile's \(view.visibleTools.count) tools (weak matches, "
                    + "not ranked by the query). Try other words:\n"
        }
        if !tools.isEmpty { text += String(decoding: JSONValue.array(tools).serialized(), as: UTF8.self) }
        return [
            "content": [["type": "text", "text": .string(text)]],
            "structuredContent": ["tools": .array(tools), "match": weak ? "weak" : "strong"],
        ]
    }

    /// A tool's definition as a search result shows it: under the profile's name, what an agent needs to call it.
    private func listing(of shown: String, _ view: ProfileView) -> JSONValue? {
        guard let tool = view.definition(of: shown) else { return nil }
        var found: JSONObject = ["name": .string(shown)]
        for key in ["title", "description", "inputSchema", "outputSchema", "annotations"] {
            if let value = tool[key] { found[key] = value }
        }
        return .object(found)
    }
}
