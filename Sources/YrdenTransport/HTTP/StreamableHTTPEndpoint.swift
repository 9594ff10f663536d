import YrdenProtocol

/// Where and how to reach one Streamable HTTP upstream.
package struct StreamableHTTPEndpoint: Sendable {
    /// The MCP endpoint, e.g. `http://127.0.0.1:8000/mcp`.
    package var url: String
    /// Sent on every request. They often carry secrets: never log their values.
    package var headers: [String: String]
    /// The per-request timeout for anything but a tool call.
    package var requestTimeout: Duration
    /// The per-request timeout for `tools/call`.
    package var toolCallTimeout: Duration
    /// Signs each request in, for a server behind OAuth; `nil` when `headers` say all there is to say.
    package var authorizer: (any UpstreamAuthorizer)?
    /// Whether the server's GET stream is held open after the handshake. A user's own session of a per-user
    /// server goes without one: its calls' answers come on their POSTs, and a stream per user would hold one of
    /// the pool's connections to the host per user.
    package var opensListenStream = true

    /// The caller's own deadline may be extended by progress up to this many times its timeout (see the
    /// gateway's `maxTotalTimeout`), so a POST is cut off only after that: a backstop, never the first to fire.
    static let deadlineFactor = 4

    package init(
        url: String,
        headers: [String: String],
        requestTimeout: Duration,
        toolCallTimeout: Duration,
        authorizer: (any UpstreamAuthorizer)? = nil
    ) {
        self.url = url
        self.headers = headers
        self.requestTimeout = requestTimeout
        self.toolCallTimeout = toolCallTimeout
        self.authorizer = authorizer
    }

    /// The longest one POST carrying `method` may take, response stream included.
    func postDeadline(for method: String?) -> Duration {
        let timeout = method == MCPMethod.toolsCall ? toolCallTimeout : requestTimeout
        return timeout * Self.deadlineFactor + .seconds(5)
    }
}

/// What the channel needs to know about a frame it sends: its id (when it is a request) and method.
struct OutboundFrame: Sendable {
    var bytes: [UInt8]
    /// The request id, when the frame is a request; a synthesized error answers to it.
    var id: JSONRPCID?
    /// The method, when the frame is a request or notification.
    var method: String?
    /// The 2026-07-28 revision the request's envelope names: such a request goes without a session, with the
    /// routing headers that era requires.
    var modernVersion: String?
    /// What 2026-07-28's `Mcp-Name` carries: the tool or prompt name, or the resource URI.
    var name: String?
    /// The request a `notifications/cancelled` names.
    var cancels: JSONRPCID?
    /// Headers of this request alone (2026-07-28's `Mcp-Param-*`, or the `Authorization` a call carries for
    /// its caller: a token exchanged or forwarded for that caller).
    var extraHeaders: [(name: String, value: String)] = []

    /// The request carries its caller's own credential, which the endpoint's authorizer must not replace.
    var carriesCredential: Bool {
        extraHeaders.contains { $0.name.lowercased() == "authorization" }
    }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        guard let object = try? JSONValue.parse(bytes).objectValue, let method = object["method"]?.stringValue else {
            return
        }
        self.method = method
        if let id = object["id"] { self.id = JSONRPCID(id) }
        let params = object["params"]
        if method == MCPMethod.cancelled, let id = params?["requestId"] { cancels = JSONRPCID(id) }
        modernVersion = params?["_meta"]?[ModernEnvelope.versionKey]?.stringValue
        if modernVersion != nil {
            name =
                method == MCPMethod.resourcesRead
                ? params?["uri"]?.stringValue : Self.namedMethods.contains(method) ? params?["name"]?.stringValue : nil
        }
    }

    private static let namedMethods: Set<String> = [MCPMethod.toolsCall, MCPMethod.promptsGet]

    /// 2026-07-28's routing headers for this frame; empty for a frame of the handshake era.
    var modernHeaders: [(name: String, value: String)] {
        guard let modernVersion, let method else { return [] }
        var headers = [(name: HTTPConnection.versionHeader, value: modernVersion), (name: "Mcp-Method", value: method)]
        if let name { headers.append((name: "Mcp-Name", value: MCPHeaderValue.encode(name))) }
        return headers + extraHeaders
    }

    var isRequest: Bool { id != nil }

    /// A request that only reads, so sending it twice is harmless: these are retried after network errors
    /// and 5xx answers. A tool call is never among them, whatever the tool does.
    var isIdempotent: Bool {
        guard isRequest, let method else { return false }
        return Self.idempotentMethods.contains(method)
    }

    static let idempotentMethods: Set<String> = [
        MCPMethod.initialize, MCPMethod.ping, MCPMethod.toolsList, MCPMethod.promptsList, MCPMethod.promptsGet,
        MCPMethod.resourcesList, MCPMethod.resourceTemplatesList, MCPMethod.resourcesRead,
    ]
}
