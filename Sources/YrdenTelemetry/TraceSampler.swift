/// Which traces are recorded: parent-based, with a ratio for new traces.
///
/// A parent's `sampled` flag is followed either way, so one trace is recorded whole or not at all; a new
/// trace is recorded when its id falls under the ratio (OpenTelemetry's `TraceIdRatioBased`: the low 63 bits
/// of the id against `ratio × 2⁶³`), so every process sampling at the same ratio agrees on the same traces.
package struct TraceSampler: Sendable {
    package let ratio: Double
    private let bound: UInt64

    /// `ratio` is clamped to 0…1.
    package init(ratio: Double) {
        let clamped = ratio.isNaN ? 0 : min(max(ratio, 0), 1)
        self.ratio = clamped
        bound = clamped >= 1 ? UInt64.max : UInt64(clamped * 9_223_372_036_854_775_808.0)
    }

    package func isSampled(_ traceID: TraceID, parent: SpanContext?) -> Bool {
        if let parent { return parent.sampled }
        if ratio >= 1 { return true }
        return traceID.low & 0x7FFF_FFFF_FFFF_FFFF < bound
    }
}
