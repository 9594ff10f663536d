import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// 2026-07-28 requests on `/mcp`: no session, the routing headers checked against the body, errors with the
/// HTTP status the era gives them, and `subscriptions/listen` as a stream of its own.
extension MCPEndpoint {
    static let methodHeader = "Mcp-Method"
    static let nameHeader = "Mcp-Name"

    func stateless(_ call: JSONRPCRequest, _ request: HTTPRequest, caller: Caller) async -> HTTPResponse {
        if let mismatch = Self.headerMismatch(call, request.headers)
            ?? gateway.paramHeaderMismatch(call, scope: scope, header: { request.headers.values(for: $0) })
        {
            return FrontResponses.jsonRPC(400, .response(JSONRPCResponse(id: call.id, error: mismatch)))
        }
        if call.method == MCPMethod.subscriptionsListen {
            guard MediaTypeRules.acceptsStream(request.headers["Accept"]) else {
                return Self.notAcceptable("Accept must list text/event-stream")
            }
            return listen(call, client: request.clientKey(for: caller), caller: caller)
        }
        if let handedOff = await handOffIfHeldElsewhere(call, request) { return handedOff }
        let gateway = self.gateway
        let scope = self.scope
        // A requestState minted for this call is bound to the credential it came with.
        let principal = request.headers["Authorization"]
        let client = request.clientKey(for: caller)
        let respond = { @Sendable (related: RelatedMessageSink?) async -> JSONRPCResponse in
            await gateway.respondStateless(
                to: call,
                principal: principal,
                client: client,
                caller: caller,
                scope: scope,
                related: related
            )
        }
        guard call.params?["_meta"]?["progressToken"] != nil else {
            guard call.params?["_meta"]?[ModernEnvelope.logLevelKey] != nil else {
                return Self.statelessAnswer(await respond(nil))
            }
            // Log messages the request opted into go on its own stream, which opens when the first comes.
            return await UpgradableAnswer.respond(answer: Self.statelessAnswer) { await respond($0) }
        }
        return HTTPResponse(
            status: 200,
            headers: SSE.headers,
            body: .stream { writer in
                await RelatedMessageRelay.run(write: { try? await writer.write(SSE.event($0)) }) { await respond($0) }
            }
        )
    }

    /// -32020 when `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name` is missing, repeated, or says other than
    /// the body; `nil` when they agree.
    static func headerMismatch(_ call: JSONRPCRequest, _ headers: HTTPHeaders) -> JSONRPCError? {
        let bodyVersion = call.params?["_meta"]?[ModernEnvelope.versionKey]?.stringValue
        var expected: [(header: String, value: String?)] = [
            (versionHeader, bodyVersion), (methodHeader, call.method),
        ]
        switch call.method {
        case MCPMethod.toolsCall, MCPMethod.promptsGet: expected.append((nameHeader, call.params?["name"]?.stringValue))
        case MCPMethod.resourcesRead: expected.append((nameHeader, call.params?["uri"]?.stringValue))
        default: break
        }
        for (header, value) in expected {
            let sent = headers.values(for: header)
            guard sent.count <= 1 else { return .headerMismatch("\(header) is sent more than once") }
            guard let first = sent.first else { return .headerMismatch("\(header) is missing") }
            let decoded = header == nameHeader ? MCPHeaderValue.decode(first) : first
            guard decoded == value else { return .headerMismatch("\(header) does not match the request body") }
        }
        return nil
    }

    /// The HTTP status 2026-07-28 gives an answer: 400 for a request the server refused to read, 404 for an
    /// unknown method, 429 for a call refused by a limit, 200 otherwise (a tool's own failure included).
    static func status(of response: JSONRPCResponse) -> Int {
        guard case .failure(let error) = response.outcome else { return 200 }
        switch error.code {
        case -32700, -32600, -32602, -32020, -32021, -32022: return 400
        case -32601: return 404
        case RateLimited.code: return 429
        default: return 200
        }
    }

    /// 405 for a GET or DELETE of the stateless era (no session, a 2026-07-28 version header): it has no
    /// standalone stream and no session to end.
    static func isStatelessEraStreamOrDelete(_ request: HTTPRequest) -> Bool {
        request.headers[sessionHeader] == nil && request.headers[versionHeader] == ProtocolVersion.modern
    }
}
