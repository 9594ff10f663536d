/// Base64url without padding, as JOSE writes every part of a token and every key parameter (RFC 7515 §2).
enum Base64URL {
    /// The bytes `text` encodes; `nil` for anything but unpadded base64url (a `+`, `/` or `=` included).
    ///
    /// One pass over the UTF-8 bytes: a token's parts are decoded for every token not seen before, and the
    /// earlier rewrite into standard base64 through a `String`, character by character, cost more than the
    /// RS256 verify that follows.
    static func decode(_ text: Substring) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count * 3 / 4)
        var bits: UInt32 = 0
        var count = 0
        for byte in utf8 {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            default: return nil
            }
            bits = bits << 6 | value
            count += 6
            if count >= 8 {
                count -= 8
                output.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
            }
        }
        return output
    }
}
