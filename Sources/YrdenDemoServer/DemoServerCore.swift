import YrdenProtocol

/// The demo server's protocol logic: one inbound message in, at most one reply out, no I/O.
///
/// Everything except the `slow` tool is answered by the return value of ``handle(_:)``, on the caller's thread
/// and without any task hop, so the stdio loop answers `tools/call echo` inline. A `slow` call is queued
/// instead; ``runSlowCalls()`` performs queued calls as child tasks and hands their progress notifications and
/// final responses to `emit`. The shell writes both kinds of output to stdout; tests collect them.
///
/// The server is lenient about the lifecycle: it answers any request whether or not `initialize` came first,
/// so benchmarks and probes can skip the handshake.
package final class DemoServerCore: Sendable {
    /// Where progress notifications and deferred responses go. Called from child tasks, possibly concurrently.
    let emit: @Sendable (JSONRPCMessage) -> Void
    let slowCalls = SlowCallRegistry()
    private let queue: AsyncStream<SlowCall>
    private let queueInput: AsyncStream<SlowCall>.Continuation

    package static let serverName = "yrden-demo"
    package static let serverVersion = "0.1.0"

    package init(emit: @escaping @Sendable (JSONRPCMessage) -> Void) {
        self.emit = emit
        (queue, queueInput) = AsyncStream.makeStream(of: SlowCall.self)
    }

    /// What answering a request came to: a result now, or one sent later through `emit`.
    enum Answer {
        case result(JSONValue)
        case deferred
    }

    /// Handles one stdio line: a message or (2025-03-26) a batch. Returns what to write back as one line, if
    /// anything: a response, an array of responses for a batch, or -32700 with a null id for bytes that are
    /// not JSON.
    package func handle(line: some Collection<UInt8>) -> JSONValue? {
        let body: JSONRPCBody
        do {
            body = try JSONRPCBody.decode(line)
        } catch {
            return JSONRPCResponse(id: nil, error: error).message.json
        }
        switch body {
        case .single(let result, let rawID):
            return reply(to: result, rawID: rawID)?.json
        case .batch(let members):
            let replies = members.compactMap { reply(to: $0.0, rawID: $0.rawID)?.json }
            return replies.isEmpty ? nil : .array(replies)
        }
    }

    private func reply(to result: Result<JSONRPCMessage, JSONRPCError>, rawID: JSONRPCID?) -> JSONRPCMessage? {
        switch result {
        case .success(let message): handle(message)
        case .failure(let error): JSONRPCResponse(id: rawID, error: error).message
        }
    }

    /// Handles one message. Returns the response to a request, or `nil` for notifications, for responses
    /// (the demo sends no requests, so it ignores them) and for a `slow` call, which answers later.
    package func handle(_ message: JSONRPCMessage) -> JSONRPCMessage? {
        switch message {
        case .request(let request):
            do {
                switch try answer(request) {
                case .result(let result): return JSONRPCResponse(id: request.id, result: result).message
                case .deferred: return nil
                }
            } catch {
                return JSONRPCResponse(id: request.id, error: error).message
            }
        case .notification(let notification):
            if notification.method == MCPMethod.cancelled { cancel(notification.params) }
            return nil
        case .response:
            return nil
        }
    }

    private func answer(_ request: JSONRPCRequest) throws(JSONRPCError) -> Answer {
        switch request.method {
        case MCPMethod.toolsCall: return try callTool(request)
        case MCPMethod.ping: return .result([:])
        case MCPMethod.initialize: return .result(initializeResult(request.params))
        case MCPMethod.toolsList: return .result(try firstPage(DemoTools.listResult, request.params))
        case MCPMethod.resourcesList: return .result(try firstPage(DemoResources.listResult, request.params))
        case MCPMethod.resourceTemplatesList:
            return .result(try firstPage(DemoResources.templatesListResult, request.params))
        case MCPMethod.resourcesRead: return .result(try readResource(request.params))
        case MCPMethod.promptsList: return .result(try firstPage(DemoPrompts.listResult, request.params))
        case MCPMethod.promptsGet: return .result(try DemoPrompts.get(request.params))
        // Everything else, `server/discover` included: this demo speaks the handshake-era protocol only.
        default: throw .methodNotFound(request.method)
        }
    }

    /// Every list fits one page, so the server never hands out a cursor, and any cursor it gets is invalid.
    private func firstPage(_ result: JSONValue, _ params: JSONValue?) throws(JSONRPCError) -> JSONValue {
        if let cursor = params?["cursor"], cursor != .null {
            throw .invalidParams("Invalid cursor: this server never returns one")
        }
        return result
    }

    private func initializeResult(_ params: JSONValue?) -> JSONValue {
        [
            "protocolVersion": .string(ProtocolVersion.negotiate(requested: params?["protocolVersion"]?.stringValue)),
            "capabilities": [
                "tools": ["listChanged": true],
                "resources": ["subscribe": false, "listChanged": false],
                "prompts": ["listChanged": false],
                "extensions": ["io.modelcontextprotocol/ui": [:]],
            ],
            "serverInfo": ["name": .string(Self.serverName), "version": .string(Self.serverVersion)],
            "instructions": """
            Yrden's built-in demo server: echo, add, slow (progress), show_dashboard (MCP Apps UI) and fail \
            tools, demo:// resources, and greet/review_code prompts.
            """,
        ]
    }

    /// `notifications/cancelled`: stops a running `slow` call so that it never answers. Ids that are unknown,
    /// already answered or malformed are ignored, as the spec asks.
    private func cancel(_ params: JSONValue?) {
        guard let rawID = params?["requestId"], let id = JSONRPCID(rawID) else { return }
        slowCalls.cancel(id)
    }

    /// Queues a `slow` call for ``runSlowCalls()``.
    func enqueue(_ call: SlowCall) {
        queueInput.yield(call)
    }

    /// Performs queued `slow` calls, each as a child task, until ``finishInput()``. Then cancels the calls still
    /// running (their client has gone; they send nothing more) and returns once they have all stopped.
    package func runSlowCalls() async {
        await withDiscardingTaskGroup { group in
            for await call in queue {
                group.addTask { await self.perform(call) }
            }
            group.cancelAll()
        }
    }

    /// Says that no more input will come: ``runSlowCalls()`` then winds down and returns.
    package func finishInput() {
        queueInput.finish()
    }
}
