#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few protobuf wire forms OTLP traces need: varints, length-delimited fields (strings, bytes, nested
/// messages), fixed64 and fixed32. Fields are written in field-number order; defaults are left out, as
/// proto3 does.
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    mutating func reserve(_ capacity: Int) { bytes.reserveCapacity(capacity) }

    private enum WireType: UInt64 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    private mutating func tag(_ field: UInt64, _ type: WireType) {
        varint(field << 3 | type.rawValue)
    }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A varint field (enums, bools, int64 as two's complement); left out when zero.
    mutating func varintField(_ field: UInt64, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    /// A oneof's varint: written even when zero, so the value's kind is known.
    mutating func requiredVarintField(_ field: UInt64, _ value: UInt64) {
        tag(field, .varint)
        varint(value)
    }

    mutating func fixed64Field(_ field: UInt64, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .fixed64)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func fixed32Field(_ field: UInt64, _ value: UInt32) {
        guard value != 0 else { return }
        tag(field, .fixed32)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// A double field (`double_value`): fixed64 of its bits, written even when zero since it is in a oneof.
    mutating func doubleField(_ field: UInt64, _ value: Double) {
        tag(field, .fixed64)
        let bits = value.bitPattern
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    mutating func bytesField(_ field: UInt64, _ value: [UInt8]) {
        guard !value.isEmpty else { return }
        tag(field, .lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func stringField(_ field: UInt64, _ value: String) {
        guard !value.isEmpty else { return }
        tag(field, .lengthDelimited)
        varint(UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    /// A string field from a constant (an attribute's key).
    mutating func stringField(_ field: UInt64, _ value: StaticString) {
        tag(field, .lengthDelimited)
        varint(UInt64(value.utf8CodeUnitCount))
        value.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A oneof's string: written even when empty, so the value's kind is known.
    mutating func requiredStringField(_ field: UInt64, _ value: String) {
        tag(field, .lengthDelimited)
        varint(UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    /// A nested message, written in place behind one byte saved for its length: most of a span's messages
    /// are under 128 bytes, so that byte is the length; a longer one moves its bytes up by the few more the
    /// length takes (a span has a dozen nested messages; a buffer of its own each was 6.7 % of a traced call).
    mutating func messageField(_ field: UInt64, _ write: (inout ProtobufWriter) -> Void) {
        tag(field, .lengthDelimited)
        let prefix = bytes.count
        bytes.append(0)
        write(&self)
        let start = prefix + 1
        var length = UInt64(bytes.count - start)
        guard length >= 0x80 else {
            bytes[prefix] = UInt8(length)
            return
        }
        var prefixCount = 1
        var rest = length >> 7
        while rest > 0 {
            prefixCount += 1
            rest >>= 7
        }
        let contentCount = bytes.count - start
        bytes.append(contentsOf: repeatElement(0, count: prefixCount - 1))
        bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            // Overlapping ranges: memmove's job.
            _ = memmove(base + prefix + prefixCount, base + start, contentCount)
            for index in prefix..<(prefix + prefixCount) {
                base[index] = UInt8(truncatingIfNeeded: length & 0x7F) | (index < prefix + prefixCount - 1 ? 0x80 : 0)
                length >>= 7
            }
        }
    }

    /// A 16-byte `bytes` field of two big-endian words (a trace id), without an array for them.
    mutating func bytesField(_ field: UInt64, high: UInt64, low: UInt64) {
        tag(field, .lengthDelimited)
        bytes.append(16)
        appendBigEndian(high)
        appendBigEndian(low)
    }

    /// An 8-byte `bytes` field of one big-endian word (a span id); left out when zero (no parent).
    mutating func bytesField(_ field: UInt64, word: UInt64) {
        guard word != 0 else { return }
        tag(field, .lengthDelimited)
        bytes.append(8)
        appendBigEndian(word)
    }

    private mutating func appendBigEndian(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// A string field of `head`, a space and `tail` (a span's name and its target), without joining them first.
    mutating func stringField(_ field: UInt64, _ head: String, _ tail: String) {
        tag(field, .lengthDelimited)
        varint(UInt64(head.utf8.count + 1 + tail.utf8.count))
        bytes.append(contentsOf: head.utf8)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: tail.utf8)
    }
}
