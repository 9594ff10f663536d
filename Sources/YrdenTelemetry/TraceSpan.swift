/// A span being timed: its context (always, since an unsampled call still propagates its trace), and its
/// record when the trace is sampled.
package struct TraceSpan: Sendable {
    package let context: SpanContext
    /// `nil` when the trace is not sampled: nothing is recorded, only the context travels on.
    package var record: SpanRecord?

    package init(context: SpanContext, record: SpanRecord?) {
        self.context = context
        self.record = record
    }

    package var isRecording: Bool { record != nil }

    /// Sets typed attributes (see ``MCPSpanAttributes``); nothing when not recording.
    package mutating func setMCP(_ update: (inout MCPSpanAttributes) -> Void) {
        guard record != nil else { return }
        update(&record!.mcp)
    }

    /// Adds an attribute of no typed field; nothing when not recording.
    package mutating func set(_ key: String, _ value: String) {
        record?.attributes.append(SpanAttribute(key, .string(value)))
    }

    package mutating func set(_ key: String, _ value: AttributeValue) {
        record?.attributes.append(SpanAttribute(key, value))
    }

    /// Marks the span failed: `error.type` as the semantic conventions name it, status ERROR.
    package mutating func fail(_ errorType: String, message: String = "") {
        record?.mcp.errorType = errorType
        record?.status = .error(message)
    }

    /// Names the span again (once its target is known).
    package mutating func rename(_ name: String) {
        record?.name = name
        record?.nameTarget = nil
    }

    package mutating func link(_ other: SpanContext) {
        record?.links.append(other)
    }
}
