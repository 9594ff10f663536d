/// The part of a span that crosses process boundaries: W3C trace context (`traceparent`, `tracestate`).
package struct SpanContext: Sendable, Hashable {
    package let traceID: TraceID
    package let spanID: SpanID
    /// The `sampled` flag: whoever made the span records it, so its children are recorded too.
    package let sampled: Bool
    /// The vendors' `tracestate`, passed on as received (bounded by the parser); `nil` when none came.
    package let traceState: String?

    package init(traceID: TraceID, spanID: SpanID, sampled: Bool, traceState: String? = nil) {
        self.traceID = traceID
        self.spanID = spanID
        self.sampled = sampled
        self.traceState = traceState
    }

    /// The longest `tracestate` kept: W3C allows 32 members of at most 256 characters each; longer is
    /// dropped rather than cut, since a cut member would be malformed.
    package static let maxTraceStateLength = 8_192

    /// Reads a `traceparent` (version `00`, or a later version's first four fields as W3C says), with its
    /// `tracestate`. Malformed values give `nil`: the caller starts a new trace, never answers with an error.
    package init?(traceparent: String, tracestate: String? = nil) {
        let text = traceparent.trimmingSpaces
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count >= 4, fields[0].utf8.count == 2, fields[3].utf8.count == 2,
            let version = HexDigits.parse(fields[0]), version != 0xFF,
            let traceID = TraceID(hex: fields[1]),
            let spanID = SpanID(hex: fields[2]),
            let flags = HexDigits.parse(fields[3])
        else { return nil }
        // Version 00 has exactly four fields; a later version may add more, after a dash.
        if version == 0, fields.count != 4 { return nil }
        let state = tracestate?.trimmingSpaces
        self.init(
            traceID: traceID,
            spanID: spanID,
            sampled: flags & 1 == 1,
            traceState: state.flatMap { $0.isEmpty || $0.utf8.count > Self.maxTraceStateLength ? nil : $0 }
        )
    }

    /// `00-{trace id}-{span id}-{flags}`: 55 bytes written in place, one allocation.
    package var traceparent: String {
        String(unsafeUninitializedCapacity: 55) { buffer in
            let dash = UInt8(ascii: "-")
            let zero = UInt8(ascii: "0")
            (buffer[0], buffer[1], buffer[2]) = (zero, zero, dash)
            HexDigits.write(traceID.high, into: buffer, at: 3)
            HexDigits.write(traceID.low, into: buffer, at: 19)
            buffer[35] = dash
            HexDigits.write(spanID.value, into: buffer, at: 36)
            (buffer[52], buffer[53], buffer[54]) = (dash, zero, sampled ? UInt8(ascii: "1") : zero)
            return 55
        }
    }
}

extension String {
    /// Without the spaces and tabs HTTP allows around a header's value.
    fileprivate var trimmingSpaces: String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view.removeFirst() }
        while let last = view.last, last == " " || last == "\t" { view.removeLast() }
        return String(view)
    }
}
