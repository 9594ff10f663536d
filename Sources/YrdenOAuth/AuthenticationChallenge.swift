/// One challenge of a `WWW-Authenticate` header (RFC 9110 §11.6.1): a scheme with either a token68 or
/// `name=value` parameters.
package struct AuthenticationChallenge: Sendable, Hashable {
    /// The scheme as sent (`Bearer`); compare it case-insensitively.
    package var scheme: String
    /// Parameters by lowercased name, values unquoted and unescaped; a repeated name keeps its first value.
    package var parameters: [String: String]
    /// The single token68 some schemes (`Basic`, `Negotiate`) carry instead of parameters.
    package var token68: String?

    package init(scheme: String, parameters: [String: String] = [:], token68: String? = nil) {
        self.scheme = scheme
        self.parameters = parameters
        self.token68 = token68
    }

    /// Every challenge in `header`, in order. A header may hold several (`Basic realm="x", Bearer scope="y"`),
    /// and quoted values may hold commas, `=` and escaped quotes, so this is a real parser, not a split.
    /// Anything malformed is skipped rather than failing the whole header.
    package static func parse(_ header: String) -> [AuthenticationChallenge] {
        var parser = ChallengeParser(Array(header.utf8))
        return parser.challenges()
    }
}

/// The grammar: `#challenge`, `challenge = scheme [ 1*SP ( token68 / #auth-param ) ]`,
/// `auth-param = token BWS "=" BWS ( token / quoted-string )`.
private struct ChallengeParser {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func challenges() -> [AuthenticationChallenge] {
        var result: [AuthenticationChallenge] = []
        while true {
            skip { $0 == UInt8(ascii: ",") || Self.isWhitespace($0) }
            guard index < bytes.count else { return result }
            let scheme = token()
            guard !scheme.isEmpty else {
                index += 1  // not a token: skip the stray byte
                continue
            }
            var challenge = AuthenticationChallenge(scheme: scheme)
            skip(Self.isWhitespace)
            if let token68 = token68() {
                challenge.token68 = token68
            } else {
                parameters(into: &challenge)
            }
            result.append(challenge)
        }
    }

    /// Reads `name=value` pairs until the next challenge's scheme (a token not followed by `=`) or the end.
    private mutating func parameters(into challenge: inout AuthenticationChallenge) {
        while true {
            skip { $0 == UInt8(ascii: ",") || Self.isWhitespace($0) }
            let start = index
            let name = token()
            guard !name.isEmpty else { return }
            skip(Self.isWhitespace)
            guard peek == UInt8(ascii: "=") else {
                index = start  // a token without "=" starts the next challenge
                return
            }
            index += 1
            skip(Self.isWhitespace)
            let value = peek == UInt8(ascii: "\"") ? quotedString() : token()
            let key = name.lowercased()
            if challenge.parameters[key] == nil { challenge.parameters[key] = value }
        }
    }

    /// A token68 (`[A-Za-z0-9-._~+/]+ =*`) standing alone before a comma or the end; otherwise nil, unread.
    private mutating func token68() -> String? {
        let start = index
        while let byte = peek, Self.isToken68(byte) { index += 1 }
        guard index > start else { return nil }
        while peek == UInt8(ascii: "=") { index += 1 }
        let end = index
        skip(Self.isWhitespace)
        guard peek == nil || peek == UInt8(ascii: ",") else {
            index = start
            return nil
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private mutating func token() -> String {
        let start = index
        while let byte = peek, Self.isTokenCharacter(byte) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A `"…"` string with `\x` escapes; an unterminated one runs to the end of the header.
    private mutating func quotedString() -> String {
        index += 1
        var value: [UInt8] = []
        while let byte = peek {
            index += 1
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\"), let escaped = peek {
                index += 1
                value.append(escaped)
            } else {
                value.append(byte)
            }
        }
        return String(decoding: value, as: UTF8.self)
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skip(_ predicate: (UInt8) -> Bool) {
        while let byte = peek, predicate(byte) { index += 1 }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// RFC 9110 `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private static func isToken68(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array("-._~+/".utf8).contains(byte)
        }
    }
}
