import Synchronization
import YrdenProtocol
import YrdenTransport

/// One scripted MCP server, as the gateway sees it through its channel: it keeps its script, its handlers
/// and everything it received across reconnections, and the test drives what it does next (notify, ask the
/// gateway something, crash).
///
/// A request is answered by the first of: a handler for the tool (`tools/call`), a handler for the method,
/// or the script itself (the handshake, the lists with their pages, `ping`, and an echo for any listed tool).
package final class FakeUpstream: Sendable {
    package let id: String
    /// The clock handlers wait on (``FakeCall/sleep(for:)``): the gateway's, when a test moves time itself.
    package let time: any TimeSource
    /// Every message that reached this server, parsed, over all its connections, in order.
    package let received = Recording<JSONRPCMessage>()
    /// What the fake could not make sense of (a frame that is not JSON-RPC), for a test to fail on.
    package let log = Recording<String>()

    private struct State {
        var script: FakeUpstreamScript
        var methods: [String: FakeHandler] = [:]
        var tools: [String: FakeHandler] = [:]
        var channel: FakeChannel?
        var opens = 0
        var lastRequestID = 0
    }

    private let state: Mutex<State>

    init(id: String, script: FakeUpstreamScript, time: any TimeSource) {
        self.id = id
        self.time = time
        state = Mutex(State(script: script))
    }

    // MARK: Script

    /// The script as it is now; a change applies to the connection already open too.
    package var script: FakeUpstreamScript { state.withLock { $0.script } }

    package func change(_ edit: (inout FakeUpstreamScript) -> Void) {
        state.withLock { edit(&$0.script) }
    }

    /// Answers every request for `method` (any method, the handshake included) with `handler`.
    package func handle(_ method: String, _ handler: @escaping FakeHandler) {
        state.withLock { $0.methods[method] = handler }
    }

    /// Answers `tools/call` of the tool the server calls `name` with `handler`.
    package func handleTool(_ name: String, _ handler: @escaping FakeHandler) {
        state.withLock { $0.tools[name] = handler }
    }

    // MARK: Connection

    /// Channels opened to this server so far.
    package var opens: Int { state.withLock { $0.opens } }

    /// Whether the gateway holds an open connection to this server now.
    package var isConnected: Bool { state.withLock { $0.channel?.isOpen ?? false } }

    /// Ends the open connection as a child process that exits would; `false` when none is open.
    @discardableResult
    package func crash(_ message: String = "the server exited with status 1") -> Bool {
        guard let channel = state.withLock({ $0.channel }), channel.isOpen else { return false }
        channel.crash(UpstreamError(.process, message))
        return true
    }

    /// Sends a notification on the open connection (`notifications/tools/list_changed`, a log message);
    /// `false` when none is open.
    @discardableResult
    package func notify(_ method: String, params: JSONValue? = nil) -> Bool {
        guard let channel = state.withLock({ $0.channel }), channel.isOpen else { return false }
        channel.deliver(.notification(JSONRPCNotification(method: method, params: params)))
        return true
    }

    /// Sends a server-to-client request (`ping`, `sampling/createMessage`) on the open connection and waits
    /// for the gateway's answer; `nil` when none is open or no answer came within `limit`.
    package func ask(
        _ method: String,
        params: JSONValue? = nil,
        within limit: Duration = .seconds(10)
    ) async -> JSONRPCResponse? {
        let (channel, number) = state.withLock { state in
            state.lastRequestID += 1
            return (state.channel, state.lastRequestID)
        }
        guard let channel, channel.isOpen else { return nil }
        let id = JSONRPCID.string("\(self.id)-asks-\(number)")
        channel.deliver(.request(JSONRPCRequest(id: id, method: method, params: params)))
        let answer = await received.first(within: limit) { message in
            if case .response(let response) = message { response.id == id } else { false }
        }
        guard case .response(let response)? = answer else { return nil }
        return response
    }

    // MARK: What it received

    /// Requests for `method` received so far.
    package func requests(_ method: String) -> [JSONRPCRequest] {
        received.elements.compactMap { message in
            guard case .request(let request) = message, request.method == method else { return nil }
            return request
        }
    }

    /// Notifications `method` received so far.
    package func notifications(_ method: String) -> [JSONRPCNotification] {
        received.elements.compactMap { message in
            guard case .notification(let notification) = message, notification.method == method else { return nil }
            return notification
        }
    }

    /// The first request for `method` that `matches`, received already or within `limit`.
    package func firstRequest(
        _ method: String,
        within limit: Duration = .seconds(10),
        where matches: @escaping @Sendable (JSONRPCRequest) -> Bool = { _ in true }
    ) async -> JSONRPCRequest? {
        let message = await received.first(within: limit) { message in
            if case .request(let request) = message { request.method == method && matches(request) } else { false }
        }
        guard case .request(let request)? = message else { return nil }
        return request
    }

    /// The first `tools/call` of the tool the server calls `name`, received already or within `limit`.
    package func firstToolCall(
        _ name: String,
        within limit: Duration = .seconds(10),
        where matches: @escaping @Sendable (JSONRPCRequest) -> Bool = { _ in true }
    ) async -> JSONRPCRequest? {
        await firstRequest(MCPMethod.toolsCall, within: limit) { request in
            request.params?["name"]?.stringValue == name && matches(request)
        }
    }

    /// The first notification `method` that `matches`, received already or within `limit`.
    package func firstNotification(
        _ method: String,
        within limit: Duration = .seconds(10),
        where matches: @escaping @Sendable (JSONRPCNotification) -> Bool = { _ in true }
    ) async -> JSONRPCNotification? {
        let message = await received.first(within: limit) { message in
            if case .notification(let notification) = message {
                notification.method == method && matches(notification)
            } else {
                false
            }
        }
        guard case .notification(let notification)? = message else { return nil }
        return notification
    }

    // MARK: For the channel

    /// Opens a connection to this server, replacing the one before (the gateway closes that itself).
    func open(
        handler: UpstreamChannelHandler,
        onClose: @escaping @Sendable () -> Void
    ) throws(UpstreamError)
        -> FakeChannel
    {
        if let error = script.openError { throw error }
        let channel = FakeChannel(upstream: self, handler: handler, onClose: onClose)
        state.withLock { state in
            state.channel = channel
            state.opens += 1
        }
        return channel
    }

    /// What answers `request`; `nil` when nothing will (a silent server).
    func handler(for request: JSONRPCRequest) -> FakeHandler? {
        let (script, methodHandler, toolHandler) = state.withLock { state in
            let tool = request.params?["name"]?.stringValue
            let toolHandler = request.method == MCPMethod.toolsCall ? tool.flatMap { state.tools[$0] } : nil
            return (state.script, state.methods[request.method], toolHandler)
        }
        guard script.answers else { return nil }
        if let handler = toolHandler ?? methodHandler { return handler }
        return { call in Self.scripted(call.request, script: call.upstream.script) }
    }

    /// The script's own answer: the handshake, a page of a list, a pong, or an echo of a listed tool.
    private static func scripted(_ request: JSONRPCRequest, script: FakeUpstreamScript) -> FakeReply {
        if let page = script.page(request.method, cursor: request.params?["cursor"]) { return .result(page) }
        switch request.method {
        case MCPMethod.serverDiscover where script.modern:
            return .result(script.discover)
        case MCPMethod.initialize where script.modern:
            let supported = [ProtocolVersion.modern]
            return .error(
                .unsupportedVersion(
                    requested: .string(ProtocolVersion.latest),
                    supported: supported,
                    detail: "initialize"
                )
            )
        case MCPMethod.initialize:
            return .result(script.handshake)
        case MCPMethod.ping:
            return .result([:])
        case MCPMethod.toolsCall:
            let name = request.params?["name"]?.stringValue ?? ""
            guard script.tools.contains(where: { $0["name"]?.stringValue == name }) else {
                return .error(.invalidParams("Unknown tool: \(name)"))
            }
            let arguments = request.params?["arguments"] ?? [:]
            return .result([
                "content": [["type": "text", "text": .string(name)]],
                "structuredContent": ["tool": .string(name), "arguments": arguments],
            ])
        default:
            return .error(.methodNotFound(request.method))
        }
    }
}
