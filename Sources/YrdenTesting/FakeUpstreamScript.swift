import YrdenProtocol
import YrdenTransport

/// What one fake server says about itself and lists, as plain values a test edits: the handshake it answers,
/// the items of each list, and how its connection behaves (answers or stays silent, opens or refuses, closes
/// at once or slowly).
///
/// The defaults are a small, well-behaved server: one `echo` tool, every list capability with `listChanged`.
package struct FakeUpstreamScript: Sendable {
    // The handshake.
    package var protocolVersion = "2025-06-18"
    package var capabilities: JSONObject = [
        "tools": ["listChanged": true],
        "prompts": ["listChanged": true],
        "resources": ["listChanged": true],
        "completions": [:],
    ]
    package var serverInfo: JSONValue = ["name": "scripted", "version": "1.0"]
    package var instructions: String?
    /// `true`: a 2026-07-28 server. It answers `server/discover`, refuses `initialize` with -32022, and stamps
    /// `resultType` on its results; `false` (the default) is a handshake-era server, to which
    /// `server/discover` is an unknown method.
    package var modern = false

    // The lists.
    package var tools: [JSONObject] = [FakeUpstreamScript.tool("echo")]
    package var prompts: [JSONObject] = []
    package var resources: [JSONObject] = []
    package var resourceTemplates: [JSONObject] = []
    /// The `ttlMs`/`cacheScope` a 2026-07-28 server puts on every list page; `nil` puts none.
    package var listCacheHint: CacheHint?
    /// Items per page of every list (`nextCursor` is the offset of the next page); `nil` lists all at once.
    package var pageSize: Int?

    // The connection.
    /// `false`: requests are recorded but never answered (a hung server). Its handlers do not run either.
    package var answers = true
    /// Opening the channel fails with this (a command that cannot start, a refused connection).
    package var openError: UpstreamError?
    /// How long closing the channel takes (a child process slow to exit).
    package var closeDelay: Duration = .zero

    package init(
        tools: [JSONObject] = [FakeUpstreamScript.tool("echo")],
        prompts: [JSONObject] = [],
        resources: [JSONObject] = [],
        closeDelay: Duration = .zero
    ) {
        self.tools = tools
        self.prompts = prompts
        self.resources = resources
        self.closeDelay = closeDelay
    }

    /// A tool as `tools/list` describes it.
    package static func tool(_ name: String, description: String? = nil) -> JSONObject {
        var tool: JSONObject = ["name": .string(name), "inputSchema": ["type": "object"]]
        if let description { tool["description"] = .string(description) }
        return tool
    }

    /// A prompt as `prompts/list` describes it.
    package static func prompt(_ name: String) -> JSONObject {
        ["name": .string(name)]
    }

    /// A resource as `resources/list` describes it.
    package static func resource(_ uri: String, name: String? = nil) -> JSONObject {
        ["uri": .string(uri), "name": .string(name ?? uri)]
    }

    /// The `initialize` result this script answers.
    var handshake: JSONValue {
        var result: JSONObject = [
            "protocolVersion": .string(protocolVersion),
            "capabilities": .object(capabilities),
            "serverInfo": serverInfo,
        ]
        if let instructions { result["instructions"] = .string(instructions) }
        return .object(result)
    }

    /// The `server/discover` result of a 2026-07-28 script.
    var discover: JSONValue {
        var result: JSONObject = [
            "resultType": "complete",
            "supportedVersions": [.string(ProtocolVersion.modern)],
            "capabilities": .object(capabilities),
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": .object([ModernEnvelope.serverInfoKey: serverInfo]),
        ]
        if let instructions { result["instructions"] = .string(instructions) }
        return .object(result)
    }

    /// The items and key of a list method; `nil` for any other method.
    func list(_ method: String) -> (key: String, items: [JSONObject])? {
        switch method {
        case MCPMethod.toolsList: ("tools", tools)
        case MCPMethod.promptsList: ("prompts", prompts)
        case MCPMethod.resourcesList: ("resources", resources)
        case MCPMethod.resourceTemplatesList: ("resourceTemplates", resourceTemplates)
        default: nil
        }
    }

    /// One page of a list, starting at the offset the cursor names.
    func page(_ method: String, cursor: JSONValue?) -> JSONValue? {
        guard let (key, items) = list(method) else { return nil }
        let start = min(cursor?.stringValue.flatMap { Int($0) } ?? 0, items.count)
        let end = pageSize.map { min(start + max($0, 1), items.count) } ?? items.count
        var result: JSONObject = [key: .array(items[start..<end].map { .object($0) })]
        if end < items.count { result["nextCursor"] = .string("\(end)") }
        if modern { listCacheHint?.stamp(&result) }
        return .object(result)
    }
}
