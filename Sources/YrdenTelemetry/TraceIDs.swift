/// A W3C trace id: 16 bytes, never all zero (an all-zero id is invalid and means "none").
package struct TraceID: Sendable, Hashable {
    /// The first 8 bytes, big-endian.
    package let high: UInt64
    /// The last 8 bytes, big-endian; the ratio sampler reads these (they are the random part).
    package let low: UInt64

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A new random id (the system generator; never all zero).
    package static func random() -> TraceID {
        var generator = SystemRandomNumberGenerator()
        while true {
            let id = TraceID(high: generator.next(), low: generator.next())
            if id.isValid { return id }
        }
    }

    package var isValid: Bool { high != 0 || low != 0 }

    /// 32 lowercase hex digits, as `traceparent` and JSON logs have it.
    package var hex: String { HexDigits.format(high) + HexDigits.format(low) }

    /// Parses 32 lowercase hex digits; `nil` for anything else or the all-zero id.
    package init?(hex: Substring) {
        guard hex.utf8.count == 32,
            let high = HexDigits.parse(hex.prefix(16)),
            let low = HexDigits.parse(hex.suffix(16))
        else { return nil }
        self.init(high: high, low: low)
        guard isValid else { return nil }
    }

    /// The 16 bytes as OTLP sends them.
    package var bytes: [UInt8] { HexDigits.bigEndian(high) + HexDigits.bigEndian(low) }
}

/// A W3C span (parent) id: 8 bytes, never all zero.
package struct SpanID: Sendable, Hashable {
    package let value: UInt64

    package init(_ value: UInt64) { self.value = value }

    package static func random() -> SpanID {
        var generator = SystemRandomNumberGenerator()
        while true {
            let value: UInt64 = generator.next()
            if value != 0 { return SpanID(value) }
        }
    }

    package var hex: String { HexDigits.format(value) }

    /// Parses 16 lowercase hex digits; `nil` for anything else or the all-zero id.
    package init?(hex: Substring) {
        guard hex.utf8.count == 16, let value = HexDigits.parse(hex), value != 0 else { return nil }
        self.value = value
    }

    package var bytes: [UInt8] { HexDigits.bigEndian(value) }
}

/// Lowercase hex of fixed width, the only form W3C trace context allows.
enum HexDigits {
    private static let digits = Array("0123456789abcdef".utf8)

    static func format(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            for index in 0..<16 {
                let shift = UInt64((15 - index) * 4)
                buffer[index] = digits[Int((value >> shift) & 0xF)]
            }
            return 16
        }
    }

    /// Parses up to 16 lowercase hex digits; uppercase is refused, as the W3C format says.
    static func parse(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 16 else { return nil }
        var value: UInt64 = 0
        for byte in text.utf8 {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64((7 - $0) * 8)) }
    }
}
