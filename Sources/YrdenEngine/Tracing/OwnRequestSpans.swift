import YrdenProtocol
import YrdenTelemetry
import YrdenTransport

/// The CLIENT spans of the requests the gateway makes of a server of its own accord (its handshake, the list
/// reads at connect and after a change, the liveness pings): each is a trace of its own, since no client's
/// request caused it, or a child of the operator's change that started the connection; attributed as a
/// forwarded request's upstream span is (see ``RequestSpans``).
struct OwnRequestSpans: Sendable {
    /// The `config.change` span of the operator's change whose connection attempt runs in this task, if any.
    @TaskLocal static var cause: SpanContext?

    let tracer: Tracer
    let server: String
    /// `yrden.transport`: `stdio`, `http`, `sse` or `websocket`.
    let transport: String
    /// `mcp.protocol.version` once the handshake agreed on one.
    var protocolVersion: String?
    /// The span the requests are children of; `nil`: each is a trace of its own.
    var parent: SpanContext?

    /// Spans of server `server`'s own requests, or `nil` with tracing off.
    init?(
        _ tracer: Tracer?,
        server: String,
        transport: String,
        protocolVersion: String? = nil,
        parent: SpanContext? = nil
    ) {
        guard let tracer else { return nil }
        self.tracer = tracer
        self.server = server
        self.transport = transport
        self.protocolVersion = protocolVersion
        self.parent = parent
    }

    /// Starts the span of one `method` request (named as the method: these have no target).
    func start(_ method: String) -> TraceSpan {
        var span = tracer.start(method, kind: .client, parent: parent)
        guard span.isRecording else { return span }
        span.setMCP { attributes in
            attributes.method = method
            attributes.server = server
            attributes.transport = transport
            attributes.protocolVersion = protocolVersion
        }
        return span
    }

    /// `params` and `options` carrying `span`'s context: `_meta.traceparent` and, for HTTP, the headers.
    static func stamp(_ params: inout JSONValue?, _ options: inout RequestOptions, with span: TraceSpan) {
        params = .object(TraceMeta.stamping(params?.objectValue ?? [:], with: span.context))
        options.headers = TraceMeta.replacingHeaders(options.headers, for: span.context)
    }

    /// Ends `span` with the server's answer.
    func end(_ span: TraceSpan, _ answer: Result<JSONValue, JSONRPCError>) {
        RequestSpans.end(span, tracer, answer: answer)
    }

    func end(_ span: TraceSpan, failure: UpstreamError) {
        RequestSpans.end(span, tracer, failure: failure.kind)
    }

    /// Runs `request` (one `method` request) in a span: ended with its answer, or with the failure it threw.
    func traced<Value>(
        _ method: String,
        _ request: () async throws(UpstreamError) -> Value
    ) async throws(UpstreamError) -> Value {
        let span = start(method)
        do throws(UpstreamError) {
            let value = try await request()
            var ended = span
            ended.setMCP { $0.outcome = "ok" }
            tracer.end(ended)
            return value
        } catch {
            end(span, failure: error)
            throw error
        }
    }
}
