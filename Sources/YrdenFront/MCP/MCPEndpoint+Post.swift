import Logging
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

extension MCPEndpoint {
    func post(_ request: HTTPRequest, caller: Caller) async -> HTTPResponse {
        // A large body leaves large freed buffers behind (its bytes, the parsed tree, a batch's answers):
        // once it is answered, hand them back.
        defer { if request.body.count >= Self.largeBodyBytes { FreedMemory.release() } }
        let body: JSONRPCBody
        do {
            body = try JSONRPCBody.decode(request.body)
        } catch {
            return FrontResponses.rpcError(400, error)
        }
        // `initialize` opens a new session whatever session header came with it; everything else runs in
        // the session its header names (none: the gateway says which message needs one).
        var session: DownstreamSession?
        if !body.isInitialize, request.headers[Self.sessionHeader] != nil {
            switch self.session(for: request, caller: caller) {
            case .refused(let response): return response
            case .found(let found): session = found
            }
        }
        switch body {
        case .single(var message, let rawID):
            if gateway.isTracing {
                // The request's W3C headers, for a message that carries no context of its own in `_meta`.
                message = gateway.carryingTraceHeaders(
                    message,
                    traceparent: request.headers["traceparent"],
                    tracestate: request.headers["tracestate"]
                )
            }
            return await answer(gateway.receive(message, rawID: rawID, session: session), request, caller: caller)
        case .batch(let members):
            guard let session else { return Self.missingSession(id: nil) }
            return await batch(members, session: session, traceHeaders: TraceHeaders(request, gateway: gateway))
        }
    }

    /// The HTTP answer to one message's step.
    private func answer(_ step: InboundStep, _ request: HTTPRequest, caller: Caller) async -> HTTPResponse {
        switch step {
        case .answer(let response):
            return FrontResponses.jsonRPC(400, .response(response))
        case .initialize(let call):
            return await initialize(call, client: request.clientKey(for: caller), caller: caller)
        case .request(let call, let session):
            return await answer(call, session: session)
        case .stateless(let call):
            return await stateless(call, request, caller: caller)
        case .needsSession(let id):
            return Self.missingSession(id: id)
        case .accepted:
            return FrontResponses.accepted
        }
    }

    /// 400 for a message sent without `Mcp-Session-Id`, as Streamable HTTP asks.
    static func missingSession(id: JSONRPCID?) -> HTTPResponse {
        FrontResponses.rpcError(400, .invalidRequest("missing \(sessionHeader) header; send initialize first"), id: id)
    }

    private func initialize(_ call: JSONRPCRequest, client: ClientKey?, caller: Caller) async -> HTTPResponse {
        let session: DownstreamSession
        let response: JSONRPCResponse
        do throws(SessionLimitReached) {
            (session, response) = try await gateway.initialize(call, scope: scope, client: client, caller: caller)
        } catch {
            logger.warning("initialize refused: \(error.rpcError.message)")
            return FrontResponses.rpcError(503, error.rpcError, id: call.id)
        }
        logger.info(
            "session started",
            metadata: ["yrden.session": "\(session.id)", "protocolVersion": "\(session.protocolVersion)"]
        )
        return FrontResponses.jsonRPC(200, .response(response), headers: [Self.sessionHeader: session.id])
    }

    /// One request: JSON, or an SSE stream when the client asked for progress, or when something must reach
    /// the client during the call: an upstream's request (for a client that declared it can answer it), or
    /// a log message (for a client that set a level).
    private func answer(_ call: JSONRPCRequest, session: DownstreamSession) async -> HTTPResponse {
        let gateway = self.gateway
        guard call.params?["_meta"]?["progressToken"] != nil else {
            guard session.streamsCalls else {
                let response = await gateway.handle(call, session: session, related: nil)
                return FrontResponses.jsonRPC(200, .response(response))
            }
            return await UpgradableAnswer.respond { related in
                await gateway.handle(call, session: session, related: related)
            }
        }
        return HTTPResponse(
            status: 200,
            headers: SSE.headers,
            body: .stream { writer in
                await RelatedMessageRelay.run(write: { try? await writer.write(SSE.event($0)) }) { related in
                    await gateway.handle(call, session: session, related: related)
                }
            }
        )
    }

    /// From this size on, the memory a POST freed is handed back to the system after it is answered.
    static let largeBodyBytes = 1024 * 1024

    /// Members of one batch served at once; the rest wait for a slot (see ``BoundedFanOut``).
    static let batchMembersInFlight = 16

    /// A 2025-03-26 batch: every request answered in one JSON array, in order. A member without trace context
    /// in `_meta` takes the POST's `traceHeaders`.
    private func batch(
        _ members: [(Result<JSONRPCMessage, JSONRPCError>, rawID: JSONRPCID?)],
        session: DownstreamSession,
        traceHeaders: TraceHeaders?
    ) async
        -> HTTPResponse
    {
        guard ProtocolVersion.allowsBatches(session.protocolVersion) else {
            return FrontResponses.rpcError(
                400,
                .invalidRequest("batches are not part of MCP \(session.protocolVersion)")
            )
        }
        let gateway = self.gateway
        let answers = await BoundedFanOut.map(count: members.count, width: Self.batchMembersInFlight) {
            index -> JSONRPCResponse? in
            let (decoded, rawID) = members[index]
            let message = traceHeaders?.carried(into: decoded, by: gateway) ?? decoded
            switch gateway.receive(message, rawID: rawID, session: session) {
            case .answer(let response):
                return response
            case .request(let call, let session):
                return await gateway.handle(call, session: session, related: nil)
            case .initialize, .stateless, .needsSession, .accepted:
                // Members run in the batch's session, so `receive` answers an `initialize` itself and no member
                // needs a session: only notifications and responses, which get no answer, come here.
                return nil
            }
        }
        let responses = answers.compactMap { $0 }
        guard !responses.isEmpty else { return FrontResponses.accepted }
        return FrontResponses.json(200, .array(responses.map { JSONRPCMessage.response($0).json }))
    }
}
