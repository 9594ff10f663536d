import YrdenProtocol

/// Base64url without padding, as JOSE writes every part of a token and every key parameter (RFC 7515 §2).
enum Base64URL {
    /// The bytes `text` encodes; `nil` for anything but unpadded base64url (a `+`, `/` or `=` included).
    static func decode(_ text: Substring) -> [UInt8]? {
        guard text.utf8.count % 4 != 1 else { return nil }
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        for character in text.unicodeScalars {
            switch character {
            case "-": standard.append("+")
            case "_": standard.append("/")
            case "+", "/", "=": return nil
            default: standard.unicodeScalars.append(character)
            }
        }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Base64.decode(standard)
    }
}
