extension JSONValue {
    /// Compact UTF-8 JSON with no raw newline anywhere, so the output is also a valid stdio frame.
    package func serialized() -> [UInt8] {
        var output = JSONOutput(capacity: 256)
        write(to: &output)
        return output.bytes()
    }

    /// The compact JSON text, for logs and tests.
    package var jsonText: String {
        String(decoding: serialized(), as: UTF8.self)
    }

    /// Appends the compact JSON to `bytes`.
    package func write(into bytes: inout [UInt8]) {
        var output = JSONOutput(capacity: 256)
        write(to: &output)
        output.append(to: &bytes)
    }

    func write(to output: inout JSONOutput) {
        switch self {
        case .null: output.append("null")
        case .bool(let value): output.append(value ? "true" : "false")
        case .int(let value): output.write(upTo: 20) { Self.writeInt(value, at: $0) }
        case .double(let value): Self.writeDouble(value, to: &output)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            values.withUnsafeBufferPointer { values in
                for position in values.indices {
                    if position > 0 { output.append(UInt8(ascii: ",")) }
                    values[position].write(to: &output)
                }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            object.write(to: &output)
        }
    }

    /// Decimal digits written in place, no `String` made on the way; returns how many bytes it wrote.
    private static func writeInt(_ value: Int, at start: UnsafeMutablePointer<UInt8>) -> Int {
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        let sign = value < 0 ? 1 : 0
        if sign == 1 { start[0] = UInt8(ascii: "-") }
        var position = sign + digits - 1
        repeat {
            start[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
            position -= 1
        } while magnitude > 0
        return sign + digits
    }

    /// JSON has no NaN or infinity; they become `null` rather than invalid output.
    private static func writeDouble(_ value: Double, to output: inout JSONOutput) {
        guard value.isFinite else { return output.append("null") }
        writeUTF8(value.description, to: &output)
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

    static func writeString(_ string: String, to output: inout JSONOutput) {
        output.append(UInt8(ascii: "\""))
        writeUTF8(string, to: &output, escaped: true)
        output.append(UInt8(ascii: "\""))
    }

    /// Native strings, small ones included, are contiguous UTF-8: read in place, no copy and no retain.
    private static func writeUTF8(_ string: String, to output: inout JSONOutput, escaped: Bool = false) {
        func write(_ bytes: UnsafeBufferPointer<UInt8>) {
            escaped ? writeEscaped(bytes, to: &output) : output.append(bytes)
        }
        if string.utf8.withContiguousStorageIfAvailable(write) == nil {
            Array(string.utf8).withUnsafeBufferPointer(write)
        }
    }

    /// Appends `bytes` with JSON's escapes, copying the runs between them whole. Eight bytes at a time are
    /// skipped when none of them can need an escape (most text has none).
    private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout JSONOutput) {
        guard let base = bytes.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        var runStart = 0
        var position = 0
        while position < bytes.count {
            if bytes.count &- position >= 8,
                !mayNeedEscape(raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            {
                position &+= 8
                continue
            }
            let byte = bytes[position]
            position &+= 1
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            output.append(UnsafeBufferPointer(rebasing: bytes[runStart..<(position - 1)]))
            runStart = position
            switch byte {
            case 0x22: output.append("\\\"")
            case 0x5C: output.append("\\\\")
            case 0x0A: output.append("\\n")
            case 0x0D: output.append("\\r")
            case 0x09: output.append("\\t")
            default:
                output.append("\\u00")
                hexDigits.withUTF8Buffer { hex in
                    output.append(hex[Int(byte >> 4)])
                    output.append(hex[Int(byte & 0x0F)])
                }
            }
        }
        output.append(UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }

    /// Whether any of eight bytes is a control character, a quote or a backslash; may answer yes for bytes
    /// of a multi-byte character, which are then looked at one by one.
    @inline(__always)
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let quote = (quotes &- ones) & ~quotes
        let backslash = (backslashes &- ones) & ~backslashes
        return (control | quote | backslash) & highs != 0
    }
}

extension JSONValue {
    /// Indented UTF-8 JSON for files people edit: one member or item per line, `": "` after keys, keys in the
    /// object's own order, empty containers as `{}` and `[]`, and a trailing newline. Strings are escaped as
    /// in ``serialized()``, so the only raw newlines are the ones between lines.
    package func prettySerialized(indent: Int = 2) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        writePretty(into: &output, indent: max(indent, 0), depth: 0)
        output.append(0x0A)
        return output
    }

    func writePretty(into output: inout [UInt8], indent: Int, depth: Int) {
        switch self {
        case .array(let values) where !values.isEmpty:
            output.append(UInt8(ascii: "["))
            for (position, value) in values.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                Self.startLine(into: &output, spaces: indent * (depth + 1))
                value.writePretty(into: &output, indent: indent, depth: depth + 1)
            }
            Self.startLine(into: &output, spaces: indent * depth)
            output.append(UInt8(ascii: "]"))
        case .object(let object) where !object.isEmpty:
            output.append(UInt8(ascii: "{"))
            var first = true
            for (key, value) in object {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                Self.startLine(into: &output, spaces: indent * (depth + 1))
                JSONValue.string(key).write(into: &output)
                output.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
                value.writePretty(into: &output, indent: indent, depth: depth + 1)
            }
            Self.startLine(into: &output, spaces: indent * depth)
            output.append(UInt8(ascii: "}"))
        default:
            write(into: &output)
        }
    }

    /// A byte at a time: appending a `repeatElement` sequence instantiated generic metadata per line, which made
    /// a pin file of 7,000 definitions take seconds to write in a debug build (three quarters of an approval).
    static func startLine(into output: inout [UInt8], spaces: Int) {
        output.append(0x0A)
        for _ in 0..<spaces { output.append(UInt8(ascii: " ")) }
    }
}
