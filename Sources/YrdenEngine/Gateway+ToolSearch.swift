import YrdenConfig
import YrdenProtocol
import YrdenSearch

/// A profile in search mode: `search_tools` is answered here from the shared index (restricted to the
/// profile's tools, under the profile's names); `call_tool` is unwrapped into the call it carries and routed
/// like any call of that profile.
extension Gateway {
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
            return .success(searchResult(query, limit: limit, view))
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
    /// text for a host that shows only text to its model.
    private func searchResult(_ query: String, limit: Int, _ view: ProfileView) -> JSONValue {
        let hits = searchIndex.search(query, limit: limit) { key in
            view.toolNames[Route(server: key.server, name: key.name)] != nil
        }
        let tools: [JSONValue] = hits.compactMap { hit in
            guard let shown = view.toolNames[Route(server: hit.key.server, name: hit.key.name)],
                let tool = view.definition(of: shown)
            else { return nil }
            var found: JSONObject = ["name": .string(shown)]
            for key in ["title", "description", "inputSchema", "outputSchema", "annotations"] {
                if let value = tool[key] { found[key] = value }
            }
            return .object(found)
        }
        let text =
            tools.isEmpty
            ? "No tool matches \(query). Try other words."
            : String(decoding: JSONValue.array(tools).serialized(), as: UTF8.self)
        return [
            "content": [["type": "text", "text": .string(text)]],
            "structuredContent": ["tools": .array(tools)],
        ]
    }
}
