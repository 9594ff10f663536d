import YrdenProtocol
import YrdenTransport

/// Relays an upstream's requests during one call (sampling, elicitation, roots) to the client that made
/// the call, on that call's own stream, and only those the client declared it can answer.
struct SessionRelay: ServerRequestRelay {
    let session: DownstreamSession
    /// What the client declared it can answer: its session's, or a 2026-07-28 request's own.
    let capabilities: JSONObject
    /// Whether the client takes requests at all (``EraCrossing/takesRequests``).
    let takesRequests: Bool
    /// The call's stream to its client (the SSE stream of its POST, or the stdio pipe); `nil` when the call has
    /// none (its client declared nothing it could be asked).
    let send: RelatedMessageSink?
    /// How long the client may take: a person may be answering.
    let timeout: Duration

    var caller: ObjectIdentifier { ObjectIdentifier(session) }
    var clientID: String? { session.client?.description }

    /// The client capabilities whose requests are relayed.
    static let capabilities = ["sampling", "elicitation", "roots"]

    func relay(_ request: JSONRPCRequest) async -> Result<JSONValue, JSONRPCError> {
        if let refusal = Self.refusal(of: request, capabilities: capabilities) { return .failure(refusal) }
        guard takesRequests else { return .failure(EraCrossing.refusal(of: request.method)) }
        guard let send else {
            return .failure(
                JSONRPCError(code: -32603, message: "The call has no stream to its client to carry \(request.method)")
            )
        }
        if request.method == MCPMethod.elicitationCreate, let id = request.params?["elicitationId"]?.stringValue {
            session.noteElicitation(id)  // its `notifications/elicitation/complete` is this client's
        }
        return await session.asks.ask(request.method, params: request.params, timeout: timeout, send: send)
    }

    /// Why `request` is not relayed to a client with `capabilities`; `nil` when it is.
    static func refusal(of request: JSONRPCRequest, capabilities: JSONObject) -> JSONRPCError? {
        let capability: String
        switch request.method {
        case MCPMethod.samplingCreateMessage: capability = "sampling"
        case MCPMethod.rootsList: capability = "roots"
        case MCPMethod.elicitationCreate:
            capability = "elicitation"
            let mode = request.params?["mode"]?.stringValue ?? "form"
            let declared = capabilities["elicitation"]?.objectValue
            // `{}` declares form mode alone (2025-11-25); url mode must be named.
            if let declared, mode == "url", declared["url"] == nil {
                return JSONRPCError(code: -32602, message: "The client did not declare URL-mode elicitation")
            }
        default:
            return .methodNotFound(request.method)
        }
        guard capabilities[capability] != nil else {
            return JSONRPCError(code: -32601, message: "The client did not declare the \(capability) capability")
        }
        return nil
    }
}

extension DownstreamSession {
    /// Whether the client declared anything an upstream may ask it during a call (sampling, elicitation,
    /// roots).
    package var acceptsRelayedRequests: Bool {
        SessionRelay.capabilities.contains { capabilities[$0] != nil }
    }

    /// Whether a call of this client may need a stream of its own: to carry what an upstream asks it, or
    /// the log messages it asked for.
    package var streamsCalls: Bool { acceptsRelayedRequests || logLevel != nil }
}

extension Dispatcher {
    /// A handshake-era upstream's `notifications/elicitation/complete`: to the client the URL elicitation
    /// was relayed to (none when it went to a 2026-07-28 client, whose era has no such notice).
    func relayElicitationComplete(_ notification: JSONRPCNotification) {
        guard let id = notification.params?["elicitationId"]?.stringValue else { return }
        for session in sessions.all() where session.takeElicitation(id) {
            session.deliver(.notification(notification))
        }
    }
}
