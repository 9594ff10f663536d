/// Spans as an OTLP/HTTP protobuf body: `opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest`.
///
/// One `ResourceSpans` (resource attribute `service.name`) holding one `ScopeSpans` (scope `yrden`). Field
/// numbers are those of opentelemetry-proto's `trace/v1/trace.proto`, `common/v1/common.proto` and
/// `resource/v1/resource.proto` (stable since v1.0).
package enum OTLPTraceEncoding {
    /// The instrumentation scope every span of the gateway is under.
    package static let scopeName = "yrden"

    package static func exportRequest(
        _ spans: [SpanRecord],
        serviceName: String,
        scopeVersion: String = ""
    ) -> [UInt8] {
        var writer = ProtobufWriter()
        writer.reserve(spans.count * 512 + 128)
        writer.messageField(1) { resourceSpans in  // ExportTraceServiceRequest.resource_spans
            resourceSpans.messageField(1) { resource in  // ResourceSpans.resource
                resource.messageField(1) { keyValue(&$0, SpanAttribute("service.name", serviceName)) }
            }
            resourceSpans.messageField(2) { scopeSpans in  // ResourceSpans.scope_spans
                scopeSpans.messageField(1) { scope in  // ScopeSpans.scope
                    scope.stringField(1, scopeName)
                    scope.stringField(2, scopeVersion)
                }
                for span in spans {
                    scopeSpans.messageField(2) { write(span, into: &$0) }  // ScopeSpans.spans
                }
            }
        }
        return writer.bytes
    }

    /// `Span`.
    static func write(_ span: SpanRecord, into writer: inout ProtobufWriter) {
        writer.bytesField(1, high: span.context.traceID.high, low: span.context.traceID.low)
        writer.bytesField(2, word: span.context.spanID.value)
        writer.stringField(3, span.context.traceState ?? "")
        writer.bytesField(4, word: span.parentSpanID?.value ?? 0)
        if let target = span.nameTarget {
            writer.stringField(5, span.name, target)
        } else {
            writer.stringField(5, span.name)
        }
        writer.varintField(6, UInt64(span.kind.rawValue))
        writer.fixed64Field(7, span.startNanos)
        writer.fixed64Field(8, span.endNanos)
        span.mcp.forEach { key, value in
            writer.messageField(9) { keyValue(&$0, key, value) }
        }
        for attribute in span.attributes {
            writer.messageField(9) { keyValue(&$0, attribute) }
        }
        for link in span.links {
            writer.messageField(13) { linkWriter in  // Span.links: Link
                linkWriter.bytesField(1, high: link.traceID.high, low: link.traceID.low)
                linkWriter.bytesField(2, word: link.spanID.value)
                linkWriter.stringField(3, link.traceState ?? "")
                linkWriter.fixed32Field(6, link.sampled ? 1 : 0)
            }
        }
        switch span.status {
        case .unset: break
        case .ok: writer.messageField(15) { $0.varintField(3, 1) }
        case .error(let message):
            writer.messageField(15) { status in  // Status: message = 2, code = 3 (ERROR = 2)
                status.stringField(2, message)
                status.varintField(3, 2)
            }
        }
        writer.fixed32Field(16, span.context.sampled ? 1 : 0)  // Span.flags: the W3C trace flags
    }

    /// `KeyValue { key = 1; AnyValue value = 2 }`, `AnyValue` a oneof of string 1, bool 2, int 3, double 4.
    static func keyValue(_ writer: inout ProtobufWriter, _ attribute: SpanAttribute) {
        writer.stringField(1, attribute.key)
        anyValue(&writer, attribute.value)
    }

    /// A typed attribute's `KeyValue`, its key written from the binary's constant.
    static func keyValue(_ writer: inout ProtobufWriter, _ key: StaticString, _ value: AttributeValue) {
        writer.stringField(1, key)
        anyValue(&writer, value)
    }

    static func anyValue(_ writer: inout ProtobufWriter, _ attributeValue: AttributeValue) {
        writer.messageField(2) { value in
            switch attributeValue {
            case .string(let text): value.requiredStringField(1, text)
            case .bool(let flag): value.requiredVarintField(2, flag ? 1 : 0)
            case .int(let number): value.requiredVarintField(3, UInt64(bitPattern: number))
            case .double(let number): value.doubleField(4, number)
            }
        }
    }
}
