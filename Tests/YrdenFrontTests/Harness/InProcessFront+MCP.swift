import YrdenProtocol

/// An MCP client's requests to the front: the headers Streamable HTTP asks of a POST, a session opened
/// with `initialize`, and JSON-RPC messages built as a client writes them.
extension InProcessFront {
    /// What a Streamable HTTP client sends with every POST.
    static let postHeaders = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")]

    /// A JSON-RPC request as a client writes it.
    static func request(_ id: Int, _ method: String, _ params: JSONValue? = nil) -> JSONValue {
        var object: JSONObject = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { object["params"] = params }
        return .object(object)
    }

    /// A JSON-RPC notification as a client writes it.
    static func notification(_ method: String, _ params: JSONValue? = nil) -> JSONValue {
        var object: JSONObject = ["jsonrpc": "2.0", "method": .string(method)]
        if let params { object["params"] = params }
        return .object(object)
    }

    /// `initialize` of `protocolVersion`, declaring `capabilities`.
    static func initialize(_ protocolVersion: String = "2025-06-18", capabilities: JSONObject = [:]) -> JSONValue {
        request(
            0,
            MCPMethod.initialize,
            [
                "protocolVersion": .string(protocolVersion), "capabilities": .object(capabilities),
                "clientInfo": ["name": "front-test", "version": "1"],
            ]
        )
    }

    /// POSTs `message` to the MCP endpoint at `path`, in `session` when given, with the headers a client sends.
    func post(
        _ message: JSONValue,
        session: String? = nil,
        path: String = "/mcp",
        headers: [(String, String)] = []
    ) async -> FrontAnswer? {
        var fields = Self.postHeaders + headers
        if let session { fields.append(("Mcp-Session-Id", session)) }
        return await send("POST", path, headers: fields, json: message)
    }

    /// Opens a session at `path` with `initialize` and `notifications/initialized`, as a client does; its id,
    /// or `nil` when the gateway did not open one.
    func openSession(
        _ protocolVersion: String = "2025-06-18",
        capabilities: JSONObject = [:],
        path: String = "/mcp",
        headers: [(String, String)] = []
    ) async -> String? {
        let initialize = Self.initialize(protocolVersion, capabilities: capabilities)
        guard let answer = await post(initialize, path: path, headers: headers), answer.status == 200,
            let session = answer.sessionID
        else { return nil }
        let initialized = await post(
            Self.notification(MCPMethod.initialized),
            session: session,
            path: path,
            headers: headers
        )
        return initialized?.status == 202 ? session : nil
    }

    /// The tool names `tools/list` answers in `session`; `nil` when it did not answer a list.
    func toolNames(session: String, path: String = "/mcp") async -> [String]? {
        let answer = await post(Self.request(1, MCPMethod.toolsList), session: session, path: path)
        return answer?.result?["tools"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
    }
}
