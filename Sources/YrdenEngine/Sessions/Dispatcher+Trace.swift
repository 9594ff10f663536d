import YrdenProtocol
import YrdenTelemetry
import YrdenTransport

extension Dispatcher {
    /// Starts the CLIENT span of a request to `server` and stamps its context on what goes up: the params'
    /// `_meta.traceparent` (replacing the client's own) and, for an HTTP upstream, the W3C headers.
    func traced(
        _ params: inout JSONObject,
        _ options: inout RequestOptions,
        _ tracer: Tracer,
        parent: SpanContext,
        _ method: String,
        _ server: String,
        _ context: ForwardContext
    ) -> TraceSpan {
        let span = RequestSpans.upstream(
            tracer,
            parent: parent,
            method: method,
            params: params,
            server: server,
            link: context.snapshot.links[server]
        )
        TraceMeta.stamp(&params, &options, with: span.context)
        return span
    }
}
