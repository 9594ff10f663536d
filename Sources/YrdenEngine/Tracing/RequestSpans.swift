import YrdenProtocol
import YrdenTelemetry
import YrdenTransport

/// The spans of one client request: its SERVER span, the routing span and each upstream request's CLIENT
/// span, named and attributed as the OpenTelemetry semantic conventions for MCP say (`gen-ai/mcp.md`).
enum RequestSpans {
    /// `{mcp.method.name} {target}`: the tool or prompt name, or the resource URI, when the method has one.
    static func name(_ method: String, params: JSONValue?) -> String {
        guard let target = target(method, params: params) else { return method }
        return "\(method) \(target)"
    }

    static func target(_ method: String, params: JSONValue?) -> String? {
        switch method {
        case MCPMethod.toolsCall, MCPMethod.promptsGet: params?["name"]?.stringValue
        case MCPMethod.resourcesRead, MCPMethod.resourcesSubscribe, MCPMethod.resourcesUnsubscribe:
            params?["uri"]?.stringValue
        default: nil
        }
    }

    /// The SERVER span of a client request, child of the context it came with (or the parked call it retries).
    static func server(
        _ tracer: Tracer,
        _ admitted: AdmittedRequest,
        parent: SpanContext?
    ) -> TraceSpan {
        let request = admitted.request
        var span = tracer.start(
            request.method,
            target: target(request.method, params: request.params),
            kind: .server,
            parent: parent
        )
        guard span.isRecording else { return span }
        let session = admitted.session
        let transport = tracer.networkTransport
        span.setMCP { attributes in
            attributes.method = request.method
            if !session.id.isEmpty { attributes.sessionID = session.id }
            attributes.protocolVersion = session.protocolVersion
            switch request.id {
            case .int(let value): attributes.requestNumber = Int64(value)
            case .string(let value): attributes.requestText = value
            }
            if request.method == MCPMethod.toolsCall, let tool = request.params?["name"]?.stringValue {
                attributes.toolName = tool
                attributes.executesTool = true
            }
            if let uri = request.params?["uri"]?.stringValue, request.method.hasPrefix("resources/") {
                attributes.resourceURI = uri
            }
            attributes.networkTransport = transport
            if case .profile(let profile) = session.scope { attributes.profile = profile }
        }
        return span
    }

    /// Ends a SERVER span with its request's outcome: `nil` (cancelled by the client), a result, or an error.
    static func end(_ span: consuming TraceSpan, _ tracer: Tracer, outcome: Result<JSONValue, JSONRPCError>?) {
        switch outcome {
        case nil: span.fail("cancelled", message: "cancelled by the client")
        case .failure(let error)?: span.fail(String(error.code), message: error.message)
        case .success(let value)?:
            if value["isError"]?.boolValue == true { span.fail("tool_error") }
        }
        tracer.end(span)
    }

    /// The routing span: which server a named item went to, under which name.
    static func route(_ tracer: Tracer, parent: SpanContext, _ route: Route) -> TraceSpan {
        var span = tracer.start("route", kind: .internal, parent: parent)
        span.setMCP { attributes in
            attributes.server = route.server
            attributes.upstreamName = route.name
        }
        return span
    }

    /// An OAuth refresh of the token a server refused, child of the call it is for (a root when untraced).
    static func oauthRefresh(_ tracer: Tracer, parent: SpanContext?, _ server: String) -> TraceSpan {
        var span = tracer.start("oauth.refresh", kind: .internal, parent: parent)
        span.setMCP { $0.server = server }
        return span
    }

    /// An operator's change: `add`, `remove`, `replace` or `reload`, of one server or all; a root span.
    static func configChange(_ tracer: Tracer, _ change: String, server: String?) -> TraceSpan {
        var span = tracer.start("config.change", kind: .internal, parent: nil)
        span.setMCP { attributes in
            attributes.change = change
            attributes.server = server
        }
        return span
    }

    /// The CLIENT span of one request to `server`, under the name the server knows.
    static func upstream(
        _ tracer: Tracer,
        parent: SpanContext,
        method: String,
        params: JSONObject,
        server: String,
        link: ServerLink?
    ) -> TraceSpan {
        let target = target(method, params: .object(params))
        var span = tracer.start(method, target: target, kind: .client, parent: parent)
        guard span.isRecording else { return span }
        span.setMCP { attributes in
            attributes.method = method
            attributes.server = server
            if method == MCPMethod.toolsCall { attributes.toolName = target }
            if let link {
                attributes.transport = link.transportName
                attributes.protocolVersion = link.handshake?.protocolVersion
            }
        }
        return span
    }

    /// `yrden.outcome` of an upstream request that failed, from the transport's reason.
    static func outcome(of failure: UpstreamError.Kind) -> String {
        switch failure {
        case .timeout: "timeout"
        case .cancelled: "cancelled"
        case .network, .notConnected, .process: "disconnected"
        case .http, .protocol, .auth, .config: "error"
        }
    }

    /// Ends a CLIENT span with an upstream answer (`yrden.outcome` `ok`, or `error` with the JSON-RPC code).
    static func end(_ span: consuming TraceSpan, _ tracer: Tracer, answer: Result<JSONValue, JSONRPCError>) {
        switch answer {
        case .success:
            span.setMCP { $0.outcome = "ok" }
        case .failure(let error):
            span.setMCP { $0.outcome = "error" }
            span.fail(String(error.code), message: error.message)
        }
        tracer.end(span)
    }

    /// Ends a CLIENT span whose request failed in the transport.
    static func end(_ span: consuming TraceSpan, _ tracer: Tracer, failure: UpstreamError.Kind) {
        let outcome = outcome(of: failure)
        span.setMCP { $0.outcome = outcome }
        span.fail(outcome == "error" ? failure.rawValue : outcome)
        tracer.end(span)
    }
}
