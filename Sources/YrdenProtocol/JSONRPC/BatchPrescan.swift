/// Counts the members of a top-level JSON array by scanning its bytes, without building any value.
///
/// A 16 MB body can hold a hundred thousand tiny messages, and parsing them all takes many times the body's
/// size in memory. Scanning first lets an oversized batch be refused for the price of one pass over bytes
/// that are already there.
enum BatchPrescan {
    /// The number of members when `bytes` is a JSON array, counting no further than `limit + 1`; `nil` when
    /// the body is not an array. Malformed JSON still gets a count; the parser that runs next rejects it.
    static func memberCount(_ bytes: [UInt8], countingUpTo limit: Int) -> Int? {
        bytes.withUnsafeBufferPointer { memberCount($0, countingUpTo: limit) }
    }

    /// The scan over raw bytes: not generic, so it is not left unspecialized behind a generic caller in another
    /// module, where each byte cost a witness-table call.
    static func memberCount(_ bytes: UnsafeBufferPointer<UInt8>, countingUpTo limit: Int) -> Int? {
        guard let first = bytes.first(where: { !isSpace($0) }), first == UInt8(ascii: "[") else { return nil }
        var depth = 0
        var inString = false
        var escaped = false
        var commas = 0
        var hasContent = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                if depth == 1 { hasContent = true }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if depth == 1 { hasContent = true }
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
            case UInt8(ascii: ","):
                if depth == 1 {
                    commas += 1
                    if commas >= limit { return commas + 1 }
                }
            default:
                if depth == 1, !isSpace(byte) { hasContent = true }
            }
        }
        return hasContent ? commas + 1 : 0
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
