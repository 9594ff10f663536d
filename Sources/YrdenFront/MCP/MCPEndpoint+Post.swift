import Logging
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

extension MCPEndpoint {
    func post(_ request: HTTPRequest) async -> HTTPResponse {
        // A large body leaves large freed buffers behind (its bytes, the parsed tree, a batch's answers):
        // once it is answered, hand them back.
        defer { if request.body.count >= Self.largeBodyBytes { FreedMemory.release() } }
        let body: JSONRPCBody
        do {
            body = try JSONRPCBody.decode(request.body)
        } catch {
            return FrontResponses.rpcError(400, error)
        }
        if case .single(.success(.request(let call)), _) = body, call.method == MCPMethod.initialize {
            return await initialize(call)
        }
        if case .single(.success(.request(let call)), _) = body, Self.isStatelessEra(call) {
            return FrontResponses.rpcError(400, Self.unsupportedEra(call), id: call.id)
        }
        let session: DownstreamSession
        switch self.session(for: request) {
        case .refused(let response): return response
        case .found(let found): session = found
        }
        switch body {
        case .single(.failure(let error), let id):
            return FrontResponses.rpcError(400, error, id: id)
        case .single(.success(.request(let call)), _):
            return await answer(call, session: session)
        case .single(.success(.notification(let notification)), _):
            gateway.handle(notification, session: session)
            return FrontResponses.accepted
        case .single(.success(.response), _):
            // The gateway sends no requests to clients yet, so there is nothing to match a response to.
            return FrontResponses.accepted
        case .batch(let members):
            return await batch(members, session: session)
        }
    }

    private func initialize(_ call: JSONRPCRequest) async -> HTTPResponse {
        let session: DownstreamSession
        let response: JSONRPCResponse
        do throws(SessionLimitReached) {
            (session, response) = try await gateway.initialize(call)
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

    /// One request: JSON, or an SSE stream when the client asked for progress.
    private func answer(_ call: JSONRPCRequest, session: DownstreamSession) async -> HTTPResponse {
        guard call.params?["_meta"]?["progressToken"] != nil else {
            let response = await gateway.handle(call, session: session, related: nil)
            return FrontResponses.jsonRPC(200, .response(response))
        }
        let gateway = self.gateway
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

    /// A 2025-03-26 batch: every request answered in one JSON array, in order.
    private func batch(
        _ members: [(Result<JSONRPCMessage, JSONRPCError>, rawID: JSONRPCID?)],
        session: DownstreamSession
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
            let member = members[index]
            switch member.0 {
            case .failure(let error):
                return JSONRPCResponse(id: member.rawID, error: error)
            case .success(.request(let call)) where call.method == MCPMethod.initialize:
                return JSONRPCResponse(id: call.id, error: .invalidRequest("initialize cannot be batched"))
            case .success(.request(let call)):
                return await gateway.handle(call, session: session, related: nil)
            case .success(.notification(let notification)):
                gateway.handle(notification, session: session)
                return nil
            case .success(.response):
                return nil
            }
        }
        let responses = answers.compactMap { $0 }
        guard !responses.isEmpty else { return FrontResponses.accepted }
        return FrontResponses.json(200, .array(responses.map { JSONRPCMessage.response($0).json }))
    }

    /// A request in the 2026-07-28 per-request envelope, which this gateway does not speak yet.
    static func isStatelessEra(_ call: JSONRPCRequest) -> Bool {
        call.params?["_meta"]?["io.modelcontextprotocol/protocolVersion"] != nil || call.method == "server/discover"
    }

    /// -32022 listing the handshake revisions, which tells dual-era clients to fall back to `initialize`.
    static func unsupportedEra(_ call: JSONRPCRequest) -> JSONRPCError {
        let requested = call.params?["_meta"]?["io.modelcontextprotocol/protocolVersion"] ?? .null
        return JSONRPCError(
            code: -32022,
            message: "Unsupported protocol version; this gateway speaks the initialize handshake",
            data: [
                "supported": .array(ProtocolVersion.supported.reversed().map { .string($0) }), "requested": requested,
            ]
        )
    }
}
