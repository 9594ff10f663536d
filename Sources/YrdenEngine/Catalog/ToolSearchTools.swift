import YrdenProtocol

/// The two tools a profile in search mode offers instead of its catalog: one that finds tools by what an agent
/// wants done, one that calls a tool found that way. Any MCP host can use them as they are, with no support for
/// deferred tool loading of its own; the search tool's description says what it reaches (servers and counts),
/// since an agent ignores a search tool whose reach it cannot see.
enum ToolSearchTools {
    static let searchName = "search_tools"
    static let callName = "call_tool"
    /// Results a search returns by default, and at most.
    static let defaultLimit = 5
    static let maxLimit = 20

    static func definitions(for view: ProfileView) -> [JSONValue] {
        let counts = view.toolCountsByServer
        let total = counts.reduce(0) { $0 + $1.count }
        let reach = counts.map { "\($0.server) (\($0.count))" }.joined(separator: ", ")
        let search: JSONValue = [
            "name": .string(searchName),
            "title": "Search tools",
            "description": .string(
                "Find the tool for a task among \(total) tools of \(counts.count) MCP servers"
                    + (reach.isEmpty ? "" : ": \(reach)") + ". Describe what you want to do in a few words; "
                    + "the best matching tools come back with their input schemas. Then call one with \(callName)."
            ),
            "inputSchema": [
                "type": "object",
                "properties": [
                    "query": ["type": "string", "description": "What you want to do, in a few words."],
                    "limit": [
                        "type": "integer", "minimum": 1, "maximum": .int(maxLimit),
                        "description": .string("How many tools to return (default \(defaultLimit))."),
                    ],
                ],
                "required": ["query"],
            ],
            "annotations": ["readOnlyHint": true, "openWorldHint": false],
        ]
        let call: JSONValue = [
            "name": .string(callName),
            "title": "Call a tool",
            "description": .string(
                "Call a tool found with \(searchName), by its name, with arguments that match its input schema."
            ),
            "inputSchema": [
                "type": "object",
                "properties": [
                    "name": ["type": "string", "description": .string("The tool's name, as \(searchName) gave it.")],
                    "arguments": ["type": "object", "description": "The tool's arguments."],
                ],
                "required": ["name"],
            ],
        ]
        return [search, call]
    }
}
