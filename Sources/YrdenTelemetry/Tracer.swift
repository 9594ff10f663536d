/// Starts and ends the gateway's spans: decides sampling, makes ids, and hands finished spans to the queue.
///
/// The engine holds one only when tracing is configured; every instrumentation point is `if let tracer`, so
/// with tracing off a call costs that one branch.
package final class Tracer: Sendable {
    package let serviceName: String
    package let sampler: TraceSampler
    package let queue: SpanQueue
    /// The downstream transport's `network.transport`: `tcp` for HTTP, `pipe` for `yrden stdio`.
    package let networkTransport: String

    package init(
        serviceName: String,
        sampleRatio: Double,
        networkTransport: String = "tcp",
        queue: SpanQueue = SpanQueue()
    ) {
        self.serviceName = serviceName
        self.networkTransport = networkTransport
        sampler = TraceSampler(ratio: sampleRatio)
        self.queue = queue
    }

    /// A new span, child of `parent` (same trace; sampled as the parent is) or the root of a new trace
    /// (sampled by the ratio). The span's `tracestate` is its parent's. Its name is `name`, or `name` and
    /// `target` joined by a space (by the exporter: nothing is formatted here).
    package func start(
        _ name: String,
        target: String? = nil,
        kind: SpanKind,
        parent: SpanContext?,
        attributes: [SpanAttribute] = []
    ) -> TraceSpan {
        let random = IDRandom.forSpan(newTrace: parent == nil)
        var traceID = parent?.traceID ?? TraceID(high: random.high, low: random.low)
        if !traceID.isValid { traceID = TraceID.random() }  // both words zero: 1 in 2¹²⁸
        let sampled = sampler.isSampled(traceID, parent: parent)
        let context = SpanContext(
            traceID: traceID,
            spanID: random.span != 0 ? SpanID(random.span) : SpanID.random(),
            sampled: sampled,
            traceState: parent?.traceState
        )
        guard sampled else { return TraceSpan(context: context, record: nil) }
        let record = SpanRecord(
            context: context,
            parentSpanID: parent?.spanID,
            name: name,
            nameTarget: target,
            kind: kind,
            startNanos: WallNanos.now(),
            attributes: attributes
        )
        return TraceSpan(context: context, record: record)
    }

    /// Ends a span now and queues it for export (nothing for an unsampled one).
    package func end(_ span: TraceSpan) {
        guard var record = span.record else { return }
        record.endNanos = WallNanos.now()
        queue.add(record)
    }
}
