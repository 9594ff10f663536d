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

/// One attribute: a key and its value, kept in a small array rather than a dictionary (a span has ~10).
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
/// lock is held while it is filled.
package struct SpanRecord: Sendable {
    package let context: SpanContext
    package let parentSpanID: SpanID?
    package var name: String
    package let kind: SpanKind
    /// Wall-clock times in nanoseconds since the Unix epoch, as OTLP has them.
    package let startNanos: UInt64
    package var endNanos: UInt64
    package var attributes: [SpanAttribute]
    /// Other traces this span is caused by too (a retry's own incoming context).
    package var links: [SpanContext]
    package var status: SpanStatus

    package init(
        context: SpanContext,
        parentSpanID: SpanID?,
        name: String,
        kind: SpanKind,
        startNanos: UInt64,
        endNanos: UInt64 = 0,
        attributes: [SpanAttribute] = [],
        links: [SpanContext] = [],
        status: SpanStatus = .unset
    ) {
        self.context = context
        self.parentSpanID = parentSpanID
        self.name = name
        self.kind = kind
        self.startNanos = startNanos
        self.endNanos = endNanos
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
