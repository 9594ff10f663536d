#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a span is to its peers (OTLP's `SpanKind`, with its wire numbers).
package enum SpanKind: UInt8, Sendable {
    case `internal` = 1
    case server = 2
    case client = 3
}

/// One attribute's value: the kinds the gateway's spans use.
package enum AttributeValue: Sendable, Equatable {
    case string(String)
    case int(Int64)
    case bool(Bool)
    case double(Double)
}

/// One attribute: a key and its value, for the attributes ``MCPSpanAttributes`` has no field for.
package struct SpanAttribute: Sendable, Equatable {
    package let key: String
    package let value: AttributeValue

    package init(_ key: String, _ value: AttributeValue) {
        self.key = key
        self.value = value
    }

    package init(_ key: String, _ value: String) { self.init(key, .string(value)) }
}

/// A span's status as OTLP has it: unset (the default), or an error with a message.
package enum SpanStatus: Sendable, Equatable {
    case unset
    case ok
    case error(String)
}

/// A recorded span: what the exporter encodes. Made on the event loop and handed to the queue whole; no
/// lock is held while it is filled, and nothing in it is formatted there: ids are integers, times raw clock
/// readings, the name and attributes references to strings the call holds (joined and named by the exporter).
package struct SpanRecord: Sendable {
    package let context: SpanContext
    package let parentSpanID: SpanID?
    /// The name, or its first part when ``nameTarget`` is set: the method, joined to its target by the
    /// exporter rather than on the event loop.
    package var name: String
    /// What the span's name ends with after a space (`tools/call` `echo`); `nil`: the name is ``name``.
    package var nameTarget: String?
    package let kind: SpanKind
    /// Wall-clock times in nanoseconds since the Unix epoch, as OTLP has them.
    package let startNanos: UInt64
    package var endNanos: UInt64
    /// The attributes of the gateway's own spans, typed (see ``MCPSpanAttributes``).
    package var mcp: MCPSpanAttributes
    /// Any other attributes, after those of ``mcp`` (empty, so not allocated, on the spans of a call).
    package var attributes: [SpanAttribute]
    /// Other traces this span is caused by too (a retry's own incoming context).
    package var links: [SpanContext]
    package var status: SpanStatus

    package init(
        context: SpanContext,
        parentSpanID: SpanID?,
        name: String,
        nameTarget: String? = nil,
        kind: SpanKind,
        startNanos: UInt64,
        endNanos: UInt64 = 0,
        mcp: MCPSpanAttributes = MCPSpanAttributes(),
        attributes: [SpanAttribute] = [],
        links: [SpanContext] = [],
        status: SpanStatus = .unset
    ) {
        self.context = context
        self.parentSpanID = parentSpanID
        self.name = name
        self.nameTarget = nameTarget
        self.kind = kind
        self.startNanos = startNanos
        self.endNanos = endNanos
        self.mcp = mcp
        self.attributes = attributes
        self.links = links
        self.status = status
    }
}

/// The wall clock in nanoseconds since the Unix epoch (`CLOCK_REALTIME`), what span times are in.
package enum WallNanos {
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
