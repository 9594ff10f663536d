import YrdenEngine
import YrdenHTTPServer
import YrdenLineIO
import YrdenProtocol

/// One message as a ``MessageConnection`` reads it: its line, and the W3C trace context headers of the HTTP
/// request that brought it (a legacy SSE POST, a WebSocket's upgrade), which a message without a context of
/// its own in `_meta` takes. A stdio line has none.
protocol ConnectionInput: Sendable {
    var input: LineInput { get }
    var traceHeaders: TraceHeaders? { get }
}

extension LineInput: ConnectionInput {
    var input: LineInput { self }
    var traceHeaders: TraceHeaders? { nil }
}

/// A line with the trace context of the HTTP request it came with.
struct TracedLine: ConnectionInput, Hashable {
    var input: LineInput
    var traceHeaders: TraceHeaders?
}

/// An HTTP request's `traceparent` and `tracestate` headers, kept only while the gateway traces.
struct TraceHeaders: Sendable, Hashable {
    var traceparent: String
    var tracestate: String?

    /// `request`'s headers; `nil` when it sent no `traceparent` or `gateway` does not trace (nothing is kept).
    init?(_ request: HTTPRequest, gateway: Gateway) {
        guard gateway.isTracing, let traceparent = request.headers["traceparent"] else { return nil }
        self.traceparent = traceparent
        tracestate = request.headers["tracestate"]
    }

    /// `message` with these headers in its `_meta` when it carries no context there (`_meta` wins).
    func carried(
        into message: Result<JSONRPCMessage, JSONRPCError>,
        by gateway: Gateway
    ) -> Result<JSONRPCMessage, JSONRPCError> {
        gateway.carryingTraceHeaders(message, traceparent: traceparent, tracestate: tracestate)
    }
}
