extension JSONValue {
    /// Compact UTF-8 JSON with no raw newline anywhere, so the output is also a valid stdio frame.
    package func serialized() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(into: &output)
        return output
    }

    /// The compact JSON text, for logs and tests.
    package var jsonText: String {
        String(decoding: serialized(), as: UTF8.self)
    }

    package func write(into output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): output.append(contentsOf: String(value).utf8)
        case .double(let value): Self.writeDouble(value, into: &output)
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            values.withUnsafeBufferPointer { values in
                for position in values.indices {
                    if position > 0 { output.append(UInt8(ascii: ",")) }
                    values[position].write(into: &output)
                }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            object.write(into: &output)
        }
    }

    /// JSON has no NaN or infinity; they become `null` rather than invalid output.
    private static func writeDouble(_ value: Double, into output: inout [UInt8]) {
        guard value.isFinite else {
            output.append(contentsOf: "null".utf8)
            return
        }
        output.append(contentsOf: value.description.utf8)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ string: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Native strings are contiguous UTF-8: read in place, no copy of the string and no retain of its storage.
        if string.utf8.withContiguousStorageIfAvailable({ writeEscaped($0, into: &output) }) == nil {
            Array(string.utf8).withUnsafeBufferPointer { writeEscaped($0, into: &output) }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends `bytes` with JSON's escapes, copying the runs between them whole.
    private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        var runStart = 0
        for position in bytes.indices {
            let byte = bytes[position]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
            runStart = position + 1
            output.append(0x5C)
            switch byte {
            case 0x22: output.append(0x22)
            case 0x5C: output.append(0x5C)
            case 0x0A: output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(UInt8(ascii: "r"))
            case 0x09: output.append(UInt8(ascii: "t"))
            default:
                output.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30])
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
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

    private func writePretty(into output: inout [UInt8], indent: Int, depth: Int) {
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
                Self.writeString(key, into: &output)
                output.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
                value.writePretty(into: &output, indent: indent, depth: depth + 1)
            }
            Self.startLine(into: &output, spaces: indent * depth)
            output.append(UInt8(ascii: "}"))
        default:
            write(into: &output)
        }
    }

    private static func startLine(into output: inout [UInt8], spaces: Int) {
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: spaces))
    }
}
