import Logging
import YrdenConfig
import YrdenProtocol
import YrdenTelemetry
import YrdenTransport

/// Receives the server-to-client messages that belong to one request (its progress), for the transport to
/// deliver on that request's own stream.
package typealias RelatedMessageSink = @Sendable (JSONRPCMessage) -> Void

extension Gateway {
    /// Answers one request of an initialized session, or returns `nil` when the client cancelled it: per
    /// MCP, the receiver of `notifications/cancelled` sends no response for that request. Never throws and
    /// never hangs past the server's timeout: every failure becomes the JSON-RPC error the client should see.
    package func respond(
        to request: JSONRPCRequest,
        session: DownstreamSession,
        related: RelatedMessageSink?
    ) async -> JSONRPCResponse? {
        await respond(to: admit(request, session: session), related: related)
    }

    /// Registers a request as in flight at once, before it is answered; see ``AdmittedRequest``.
    package func admit(_ request: JSONRPCRequest, session: DownstreamSession) -> AdmittedRequest {
        session.touch()
        return AdmittedRequest(request, in: session)
    }

    /// Answers an admitted request; `nil` when the client cancelled it. With tracing on, the request is one
    /// SERVER span, child of the trace context it came with (see ``respondTraced(to:related:tracer:)``).
    package func respond(to admitted: AdmittedRequest, related: RelatedMessageSink?) async -> JSONRPCResponse? {
        guard let tracer else { return await answer(admitted, related: related) }
        return await respondTraced(to: admitted, related: related, tracer: tracer)
    }

    /// ``respond(to:related:)`` inside the request's SERVER span: its parent is the `_meta` (or HTTP header)
    /// context, or for the retry of a parked call that call's span (linked to the retry's own context).
    private func respondTraced(
        to admitted: AdmittedRequest,
        related: RelatedMessageSink?,
        tracer: Tracer
    ) async -> JSONRPCResponse? {
        let incoming = TraceMeta.context(of: admitted.request.params)
        let parked = bridge.parkedTrace(of: admitted.request)
        var span = RequestSpans.server(tracer, admitted, parent: parked ?? incoming)
        if let parked, let incoming, incoming.traceID != parked.traceID { span.link(incoming) }
        var traced = admitted
        traced.trace = span.context
        let response: JSONRPCResponse?
        if span.isRecording {
            // Log lines written while it runs name the span; so does the one that says how it ended.
            response = await ActiveTrace.$span.withValue(span.context) {
                let response = await answer(traced, related: related)
                logger.debug(
                    "request answered",
                    metadata: [
                        "mcp.method.name": "\(traced.request.method)",
                        "outcome": "\(Self.outcomeName(response))",
                    ]
                )
                return response
            }
        } else {
            response = await answer(traced, related: related)
        }
        RequestSpans.end(span, tracer, outcome: response?.outcome)
        return response
    }

    /// `ok`, `error` or `cancelled` (no answer), as a log line says it.
    private static func outcomeName(_ response: JSONRPCResponse?) -> String {
        guard let response else { return "cancelled" }
        if case .failure = response.outcome { return "error" }
        return "ok"
    }

    /// What ``respond(to:related:)`` answers.
    private func answer(_ admitted: AdmittedRequest, related: RelatedMessageSink?) async -> JSONRPCResponse? {
        let request = admitted.request
        guard let call = admitted.call else {
            let error = JSONRPCError.invalidRequest("request id \(request.id) is already in flight in this session")
            return JSONRPCResponse(id: request.id, error: error)
        }
        let outcome: Result<JSONValue, JSONRPCError>
        var encoded: EncodedJSON?
        do {
            if let kind = ServerCatalog.Kind(listMethod: request.method) {
                let page = try await views.listPage(
                    kind,
                    cursor: request.params?["cursor"],
                    scope: admitted.session.scope
                )
                (outcome, encoded) = (.success(page.value), page.encoded)
            } else {
                outcome = try await dispatcher.dispatch(admitted, call: call, related: related)
            }
        } catch {
            outcome = .failure(error)
        }
        guard !admitted.session.finish(request.id) else { return nil }  // the client cancelled it
        var response = JSONRPCResponse(id: request.id, outcome: outcome)
        response.encodedResult = encoded
        return response
    }

    /// ``respond(to:session:related:)`` for a transport that must end each request's exchange with a
    /// message (an HTTP POST): a cancelled request gets -32800 "Request cancelled", as the official SDKs'
    /// Streamable HTTP transports answer it, never the upstream's late result or error.
    package func handle(
        _ request: JSONRPCRequest,
        session: DownstreamSession,
        related: RelatedMessageSink?
    ) async
        -> JSONRPCResponse
    {
        await respond(to: request, session: session, related: related)
            ?? JSONRPCResponse(id: request.id, error: Self.requestCancelled)
    }

    /// The answer that ends the exchange of a request its client cancelled (LSP's RequestCancelled code).
    static let requestCancelled = JSONRPCError(code: -32800, message: "Request cancelled")

    /// Notifications from the client: cancellation is relayed; the rest needs nothing from the gateway.
    package func handle(_ notification: JSONRPCNotification, session: DownstreamSession) {
        session.touch()
        if notification.method == MCPMethod.rootsListChanged {
            return dispatcher.relayRootsChanged()
        }
        guard notification.method == MCPMethod.cancelled,
            let id = notification.params?["requestId"].flatMap(JSONRPCID.init)
        else { return }
        session.cancel(id, reason: notification.params?["reason"]?.stringValue ?? "cancelled by the client")
    }

}
