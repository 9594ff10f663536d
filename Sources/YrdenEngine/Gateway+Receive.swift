import YrdenProtocol

/// What a transport does next with one message its client sent.
///
/// ``Gateway/receive(_:rawID:session:)`` decides it, so which message goes where is written once for every
/// downstream transport (Streamable HTTP, `yrden stdio`); the transport only says it its own way (an HTTP
/// status, an SSE stream, a line).
package enum InboundStep: Sendable {
    /// Answer at once with this; nothing ran (a message that did not parse, a request out of turn).
    case answer(JSONRPCResponse)
    /// Open a session: ``Gateway/initialize(_:)``.
    case initialize(JSONRPCRequest)
    /// Run this request in its session: ``Gateway/admit(_:session:)`` then ``Gateway/respond(to:related:)``.
    case request(JSONRPCRequest, DownstreamSession)
    /// A message that needs an initialized session, sent without one; the id is the request's, `nil` for a
    /// notification or response.
    case needsSession(JSONRPCID?)
    /// Taken, with nothing to answer: a notification (already acted on) or a response.
    case accepted
}

extension Gateway {
    /// The one dispatch of client messages: every downstream transport hands each message it decodes here,
    /// with the session it belongs to (`nil` before `initialize`).
    package func receive(
        _ message: Result<JSONRPCMessage, JSONRPCError>,
        rawID: JSONRPCID?,
        session: DownstreamSession?
    ) -> InboundStep {
        switch message {
        case .failure(let error):
            return .answer(JSONRPCResponse(id: rawID, error: error))
        case .success(.request(let request)) where request.method == MCPMethod.initialize:
            guard session == nil else {
                return .answer(JSONRPCResponse(id: request.id, error: .invalidRequest("already initialized")))
            }
            return .initialize(request)
        case .success(.request(let request)):
            guard let session else {
                // A dual-era client tries the stateless envelope first; -32022 tells it to fall back.
                if Self.isStatelessEra(request) {
                    return .answer(JSONRPCResponse(id: request.id, error: Self.unsupportedEra(request)))
                }
                return .needsSession(request.id)
            }
            return .request(request, session)
        case .success(.notification(let notification)):
            guard let session else { return .needsSession(nil) }
            handle(notification, session: session)
            return .accepted
        case .success(.response):
            // The gateway sends no requests to clients yet, so there is nothing to match a response to.
            return session == nil ? .needsSession(nil) : .accepted
        }
    }

    /// A request in the 2026-07-28 per-request envelope, which this gateway does not speak yet.
    static func isStatelessEra(_ request: JSONRPCRequest) -> Bool {
        request.params?["_meta"]?["io.modelcontextprotocol/protocolVersion"] != nil
            || request.method == "server/discover"
    }

    /// -32022 listing the handshake revisions, which tells dual-era clients to fall back to `initialize`.
    static func unsupportedEra(_ request: JSONRPCRequest) -> JSONRPCError {
        let requested = request.params?["_meta"]?["io.modelcontextprotocol/protocolVersion"] ?? .null
        return JSONRPCError(
            code: -32022,
            message: "Unsupported protocol version; this gateway speaks the initialize handshake",
            data: [
                "supported": .array(ProtocolVersion.supported.reversed().map { .string($0) }), "requested": requested,
            ]
        )
    }
}
