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
    /// A 2026-07-28 request, which carries its own envelope and needs no session:
    /// ``Gateway/respondStateless(to:related:)``, or a subscription stream for `subscriptions/listen`.
    case stateless(JSONRPCRequest)
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
                return ModernEnvelope.isPresent(in: request) ? .stateless(request) : .needsSession(request.id)
            }
            return .request(request, session)
        case .success(.notification(let notification)):
            guard let session else { return .needsSession(nil) }
            handle(notification, session: session)
            return .accepted
        case .success(.response(let response)):
            // The answer to a request the gateway relayed to this client; an unknown id is dropped.
            guard let session else { return .needsSession(nil) }
            session.asks.resolve(response)
            return .accepted
        }
    }
}
