/// The sampled span a task works inside, for log lines to name (`trace_id`, `span_id`). Set only while
/// tracing is on and the request is sampled, so a gateway without tracing never binds it.
package enum ActiveTrace {
    @TaskLocal package static var span: SpanContext?
}
