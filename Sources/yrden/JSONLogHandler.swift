import Logging
import YrdenProtocol
import YrdenTelemetry

#if canImport(Glibc)
import Glibc
#endif

/// One JSON object per line on stderr, for containers whose log collectors parse lines:
/// `{"time", "level", "label", "message", ...metadata}`. Lines go through `output`, never written by the
/// caller (which may be the event loop).
struct JSONLogHandler: LogHandler {
    let label: String
    let output: LogLineQueue
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line: JSONObject = [
            "time": .string(Self.timestamp()),
            "level": .string(event.level.rawValue),
            "label": .string(label),
            "message": .string("\(event.message)"),
        ]
        if let span = ActiveTrace.span {
            // Inside a sampled span: the ids a trace viewer finds the line's request by.
            line["trace_id"] = .string(span.traceID.hex)
            line["span_id"] = .string(span.spanID.hex)
        }
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) where line[key] == nil {
            line[key] = .string("\(value)")
        }
        var bytes = JSONValue.object(line).serialized()
        bytes.append(0x0A)
        output.append(bytes)
    }

    /// RFC 3339 UTC with milliseconds, from the wall clock.
    static func timestamp() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return RFC3339.string(
            epochMicroseconds: Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec / 1000),
            fractionDigits: 3
        )
    }
}
