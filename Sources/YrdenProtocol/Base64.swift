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
        var decoder = Decoder(capacity: text.utf8.count)
        var padding = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0, let value = sextet(byte, urlSafe: false) else { return nil }
            decoder.append(value)
        }
        guard padding <= 2, decoder.count < 6 else { return nil }
        return decoder.output
    }

    /// The bytes of unpadded base64url (RFC 4648 §5), as JOSE writes every part of a token and every key
    /// parameter (RFC 7515 §2); `nil` for anything else (a `+`, `/` or `=` included). One pass over the UTF-8
    /// bytes: a token's parts are decoded for every token not seen before.
    package static func decode(url text: Substring) -> [UInt8]? {
        guard text.utf8.count % 4 != 1 else { return nil }
        var decoder = Decoder(capacity: text.utf8.count)
        for byte in text.utf8 {
            guard let value = sextet(byte, urlSafe: true) else { return nil }
            decoder.append(value)
        }
        return decoder.output
    }

    /// The six bits `byte` stands for in the alphabet; `nil` when it is not in it.
    private static func sextet(_ byte: UInt8, urlSafe: Bool) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+") where !urlSafe, UInt8(ascii: "-") where urlSafe: 62
        case UInt8(ascii: "/") where !urlSafe, UInt8(ascii: "_") where urlSafe: 63
        default: nil
        }
    }

    /// Six bits in, a byte out whenever eight are held.
    private struct Decoder {
        var output: [UInt8] = []
        private var bits: UInt32 = 0
        /// The bits held and not yet output.
        private(set) var count = 0

        init(capacity: Int) { output.reserveCapacity(capacity * 3 / 4) }

        mutating func append(_ sextet: UInt32) {
            bits = bits << 6 | sextet
            count += 6
            if count >= 8 {
                count -= 8
                output.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
            }
        }
    }
}
