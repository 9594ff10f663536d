import YrdenProtocol
import YrdenTelemetry
import YrdenTransport

/// W3C trace context in a JSON-RPC message's `params._meta` (SEP-414): read from a client's request, written
/// on the request sent upstream in place of the client's own.
enum TraceMeta {
    static let traceparent = "traceparent"
    static let tracestate = "tracestate"

    /// The context a request carries in `_meta`; `nil` when it carries none or a malformed one (a new root).
    static func context(of params: JSONValue?) -> SpanContext? {
        guard let meta = params?["_meta"], let parent = meta[traceparent]?.stringValue else { return nil }
        return SpanContext(traceparent: parent, tracestate: meta[tracestate]?.stringValue)
    }

    /// Stamps a request going upstream with `span`'s context: `params._meta.traceparent` (and `tracestate`, or
    /// none), replacing whatever the client sent there, and the same as W3C headers (an HTTP upstream sends
    /// them; the others ignore them). The `traceparent` is formatted once for both.
    static func stamp(_ params: inout JSONObject, _ options: inout RequestOptions, with span: SpanContext) {
        let parent = span.traceparent
        var meta = params["_meta"]?.objectValue ?? [:]
        meta[traceparent] = .string(parent)
        meta[tracestate] = span.traceState.map { .string($0) }
        params["_meta"] = .object(meta)
        if options.headers.contains(where: { isTraceHeader($0.name) }) {
            options.headers.removeAll { isTraceHeader($0.name) }
        }
        options.headers.append((name: traceparent, value: parent))
        if let state = span.traceState { options.headers.append((name: tracestate, value: state)) }
    }

    /// Whether a header is one of W3C trace context's (names compared without case, as HTTP has them).
    private static func isTraceHeader(_ name: String) -> Bool {
        let lowercased = name.lowercased()
        return lowercased == traceparent || lowercased == tracestate
    }

    /// `params` with `_meta.traceparent` naming `span` (and its `tracestate`, or none), replacing whatever the
    /// client sent there.
    static func stamping(_ params: JSONObject, with span: SpanContext) -> JSONObject {
        var params = params
        var meta = params["_meta"]?.objectValue ?? [:]
        meta[traceparent] = .string(span.traceparent)
        meta[tracestate] = span.traceState.map { .string($0) }
        params["_meta"] = .object(meta)
        return params
    }

    /// `headers` with any `traceparent`/`tracestate` replaced by those of `span`.
    static func replacingHeaders(
        _ headers: [(name: String, value: String)],
        for span: SpanContext
    ) -> [(name: String, value: String)] {
        var headers = headers.filter { !isTraceHeader($0.name) }
        headers.append((name: traceparent, value: span.traceparent))
        if let state = span.traceState { headers.append((name: tracestate, value: state)) }
        return headers
    }

    /// `message` with the HTTP request's `traceparent`/`tracestate` put in its `_meta` when it carries none
    /// there (`_meta` is per message and wins; the header is per HTTP request). Only a request changes.
    static func carrying(_ message: JSONRPCMessage, traceparent: String, tracestate: String?) -> JSONRPCMessage {
        guard case .request(var request) = message, request.params?["_meta"]?[Self.traceparent] == nil,
            SpanContext(traceparent: traceparent, tracestate: tracestate) != nil
        else { return message }
        var params = request.params?.objectValue ?? [:]
        var meta = params["_meta"]?.objectValue ?? [:]
        meta[Self.traceparent] = .string(traceparent)
        meta[Self.tracestate] = tracestate.map { .string($0) }
        params["_meta"] = .object(meta)
        request.params = .object(params)
        return .request(request)
    }
}

extension Gateway {
    /// Whether spans are recorded and trace context propagated (a `telemetry` collector is configured).
    package var isTracing: Bool { tracer != nil }

    /// A transport's one message with its HTTP request's trace context headers carried into `_meta` (see
    /// ``TraceMeta/carrying(_:traceparent:tracestate:)``); as is when tracing is off or there is no header.
    package func carryingTraceHeaders(
        _ message: Result<JSONRPCMessage, JSONRPCError>,
        traceparent: String?,
        tracestate: String?
    ) -> Result<JSONRPCMessage, JSONRPCError> {
        guard tracer != nil, let traceparent, case .success(let decoded) = message else { return message }
        return .success(TraceMeta.carrying(decoded, traceparent: traceparent, tracestate: tracestate))
    }
}
