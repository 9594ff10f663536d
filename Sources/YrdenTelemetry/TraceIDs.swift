import Synchronization

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

    /// A new random id (never all zero).
    package static func random() -> TraceID {
        while true {
            let id = TraceID(high: IDRandom.next(), low: IDRandom.next())
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

    /// The 16 bytes as OTLP sends them (the encoder writes them in place; this is for tests and logs).
    package var bytes: [UInt8] { HexDigits.bigEndian(high) + HexDigits.bigEndian(low) }
}

/// A W3C span (parent) id: 8 bytes, never all zero.
package struct SpanID: Sendable, Hashable {
    package let value: UInt64

    package init(_ value: UInt64) { self.value = value }

    package static func random() -> SpanID {
        while true {
            let value = IDRandom.next()
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

/// The ids' random numbers: xoshiro256** seeded once from the system's generator. Ids need to be unique
/// and unpredictable enough to sample by, not secret; a `getrandom` call per id was 1.5 % of a traced call.
enum IDRandom {
    private static let state = Mutex(Xoshiro256StarStar())

    static func next() -> UInt64 { state.withLock { $0.next() } }

    /// A new span's random numbers under one lock: its span id's, and a new trace's two when it starts one.
    static func forSpan(newTrace: Bool) -> (span: UInt64, high: UInt64, low: UInt64) {
        state.withLock { generator in
            let span = generator.next()
            guard newTrace else { return (span, 0, 0) }
            return (span, generator.next(), generator.next())
        }
    }
}

/// xoshiro256** (Blackman and Vigna), seeded from `SystemRandomNumberGenerator`.
struct Xoshiro256StarStar {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    init() {
        var system = SystemRandomNumberGenerator()
        repeat {
            (s0, s1, s2, s3) = (system.next(), system.next(), system.next(), system.next())
        } while s0 | s1 | s2 | s3 == 0
    }

    mutating func next() -> UInt64 {
        let result = rotate(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotate(s3, 45)
        return result
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
}

/// Lowercase hex of fixed width, the only form W3C trace context allows.
enum HexDigits {
    static func format(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            write(value, into: buffer, at: 0)
            return 16
        }
    }

    /// Writes `value`'s 16 digits at `offset` (the caller made room).
    static func write(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        for index in 0..<16 {
            let nibble = UInt8(truncatingIfNeeded: value >> UInt64((15 - index) * 4)) & 0xF
            buffer[offset + index] = nibble < 10 ? nibble &+ 0x30 : nibble &+ 0x57  // 0-9, a-f
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
