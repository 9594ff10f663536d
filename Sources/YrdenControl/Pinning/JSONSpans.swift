import YrdenProtocol

/// Where the members of a JSON object lie in a document, found without building them: the pin file is read
/// one definition at a time (each parsed, digested and dropped), so that a restart never holds the tree of
/// 10,000 definitions, which the allocator kept after it was freed.
///
/// Only the structure is checked here (braces, quotes, colons and commas); each value a reader uses is
/// parsed with ``JSONValue/parse(_:)``, which checks the rest, and so is every value it skips.
struct JSONSpans {
    /// What the document is not, and at which byte.
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    let bytes: [UInt8]

    /// The document's one value, with whitespace around it.
    func document() throws(Malformed) -> Range<Int> {
        let start = skipWhitespace(from: 0)
        let end = try skipValue(from: start)
        guard skipWhitespace(from: end) == bytes.count else { throw fail(end, "unexpected data after the document") }
        return start..<end
    }

    /// The members of the object at `range` (as ``document()`` or this returns it), in document order;
    /// `nil` when the value there is not an object.
    func members(of range: Range<Int>) throws(Malformed) -> [(key: String, value: Range<Int>)]? {
        guard bytes[range.lowerBound] == UInt8(ascii: "{") else { return nil }
        var members: [(key: String, value: Range<Int>)] = []
        var index = skipWhitespace(from: range.lowerBound + 1)
        if index < range.upperBound, bytes[index] == UInt8(ascii: "}") { return members }
        while true {
            guard index < range.upperBound, bytes[index] == UInt8(ascii: "\"") else {
                throw fail(index, "expected a key")
            }
            let keyEnd = try skipString(from: index)
            let key = try string(index..<keyEnd)
            index = skipWhitespace(from: keyEnd)
            guard index < range.upperBound, bytes[index] == UInt8(ascii: ":") else {
                throw fail(index, "expected a colon")
            }
            let valueStart = skipWhitespace(from: index + 1)
            let valueEnd = try skipValue(from: valueStart)
            members.append((key, valueStart..<valueEnd))
            index = skipWhitespace(from: valueEnd)
            guard index < range.upperBound else { throw fail(index, "expected a comma or a brace") }
            if bytes[index] == UInt8(ascii: "}") { return members }
            guard bytes[index] == UInt8(ascii: ",") else { throw fail(index, "expected a comma or a brace") }
            index = skipWhitespace(from: index + 1)
        }
    }

    /// The value at `range`, parsed.
    func value(_ range: Range<Int>) throws(Malformed) -> JSONValue {
        do {
            return try JSONValue.parse(bytes[range])
        } catch {
            throw fail(range.lowerBound + error.offset, error.reason)
        }
    }

    private func string(_ range: Range<Int>) throws(Malformed) -> String {
        guard let text = try value(range).stringValue else { throw fail(range.lowerBound, "expected a string") }
        return text
    }

    private func skipWhitespace(from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return index
            }
        }
        return index
    }

    /// The end of the string that starts (with its quote) at `start`.
    private func skipString(from start: Int) throws(Malformed) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""): return index + 1
            case UInt8(ascii: "\\"): index += 2
            default: index += 1
            }
        }
        throw fail(start, "a string that never ends")
    }

    /// The end of the value that starts at `start`: a string, an object or array (to its matching bracket,
    /// skipping strings), or a number or literal (to the next delimiter).
    private func skipValue(from start: Int) throws(Malformed) -> Int {
        guard start < bytes.count else { throw fail(start, "expected a value") }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return try skipString(from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index = try skipString(from: index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            throw fail(start, "an object or array that never ends")
        default:
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09:
                    guard index > start else { throw fail(start, "expected a value") }
                    return index
                default:
                    index += 1
                }
            }
            guard index > start else { throw fail(start, "expected a value") }
            return index
        }
    }

    private func fail(_ offset: Int, _ reason: String) -> Malformed {
        Malformed(description: "invalid JSON at byte \(offset): \(reason)")
    }
}
