/// Base64 (RFC 4648): the standard alphabet for header values and Basic credentials, the URL-safe one for
/// PKCE and tokens.
package enum Base64 {
    /// `bytes` in base64; `urlSafe` uses `-` and `_` and leaves out the `=` padding (RFC 7636's BASE64URL).
    package static func encode(_ bytes: some Collection<UInt8>, urlSafe: Bool) -> String {
        let alphabet = urlSafe ? urlAlphabet : standardAlphabet
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            if second != nil {
                output.append(alphabet[Int(group >> 6 & 0x3F)])
            } else if !urlSafe {
                output.append(UInt8(ascii: "="))
            }
            if third != nil {
                output.append(alphabet[Int(group & 0x3F)])
            } else if !urlSafe {
                output.append(UInt8(ascii: "="))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The bytes of standard base64 (RFC 4648 §4), padded or not; `nil` when `text` is not that.
    package static func decode(_ text: String) -> [UInt8]? {
        var bits: UInt32 = 0
        var count = 0
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 3 / 4)
        var padding = 0
        for byte in text.utf8 {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            default: return nil
            }
            guard padding == 0 else { return nil }
            bits = bits << 6 | value
            count += 6
            if count >= 8 {
                count -= 8
                output.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
            }
        }
        guard padding <= 2, count < 6 else { return nil }
        return output
    }
}
