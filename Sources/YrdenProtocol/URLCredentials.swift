/// Where a URL carries credentials: the password of its user info, and the values of query parameters whose
/// names say they hold one (`api_key`, `token`, `sig`…).
///
/// Found by hand, not by FoundationEssentials' `URL`, on purpose: redaction must fail closed, and the text is
/// often not quite a URL (`https://u:${PASS}@${HOST}/mcp` before expansion, an invalid one being reported, an
/// error message quoting one), which `URL` refuses whole, credentials and all. Where the text is ambiguous
/// the rules below hide more, never less.
package enum URLCredentials {
    /// Words that make a query parameter a credential when its name contains one.
    package static let secretQueryWords = ["key", "token", "secret", "password", "auth", "sig", "credential", "code"]

    /// `url` with `transform` applied to each non-empty credential in it, everything else as it was.
    package static func mapping(_ url: String, _ transform: (String) -> String) -> String {
        var result = url
        // Characters of `result` before its query can begin: the user info, when a password may hold a `?`.
        var queryFrom = 0
        if let scheme = result.firstRange(of: "://") {
            var authorityEnd = result[scheme.upperBound...].firstIndex { "/?#".contains($0) } ?? result.endIndex
            if let at = passwordEnd(result[scheme.upperBound...], authorityEnd: authorityEnd) { authorityEnd = at }
            let authority = result[scheme.upperBound..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                let password = String(authority[authority.index(after: colon)..<at])
                if !password.isEmpty {
                    let start = result.distance(from: result.startIndex, to: authority.index(after: colon))
                    let replacement = transform(password)
                    result.replaceSubrange(authority.index(after: colon)..<at, with: replacement)
                    queryFrom = start + replacement.count + 1
                }
            }
        }
        guard let question = result.dropFirst(queryFrom).firstIndex(of: "?") else { return result }
        let fragmentStart = result[question...].firstIndex(of: "#") ?? result.endIndex
        let parameters = result[result.index(after: question)..<fragmentStart].split(
            separator: "&",
            omittingEmptySubsequences: false
        )
        let query = parameters.map { parameter -> String in
            guard let equals = parameter.firstIndex(of: "=") else { return String(parameter) }
            let name = percentDecoded(parameter[..<equals]).lowercased()
            let value = String(parameter[parameter.index(after: equals)...])
            guard secretQueryWords.contains(where: { name.contains($0) }), !value.isEmpty else {
                return String(parameter)
            }
            return "\(parameter[..<equals])=\(transform(value))"
        }
        return String(result[...question]) + query.joined(separator: "&") + String(result[fragmentStart...])
    }

    /// Where the user info ends when a password holds an unescaped `/`, `?` or `#` (`https://u:pa/ss@host`, a
    /// URL no client accepts but an error may quote): the last `@` of the URL, when the text before that
    /// character has a `:` followed by something other than a port. `nil` for every other URL.
    private static func passwordEnd(_ rest: Substring, authorityEnd: String.Index) -> String.Index? {
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@"), !authority.hasPrefix("["), let colon = authority.firstIndex(of: ":"),
            !authority[authority.index(after: colon)...].allSatisfy({ $0.isASCII && $0.isNumber }),
            let at = rest.lastIndex(of: "@"), at > authorityEnd
        else { return nil }
        return rest.index(after: at)
    }

    /// `name` with its `%XX` escapes decoded, so `t%6Fken` is the `token` a server reads.
    private static func percentDecoded(_ name: Substring) -> String {
        guard name.contains("%") else { return String(name) }
        var bytes: [UInt8] = []
        var rest = name.utf8[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%"), rest.count >= 2,
                let value = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The credentials in `url`, as written.
    package static func credentials(in url: String) -> [String] {
        var found: [String] = []
        _ = mapping(url) { credential in
            found.append(credential)
            return credential
        }
        return found
    }

    /// `text` (an error message, a log line) with the credentials of every URL in it replaced by `mark`. A URL
    /// runs from its scheme to the next whitespace, quote or angle bracket.
    package static func scrubbing(_ text: String, mark: String) -> String {
        guard text.contains("://") else { return text }
        var result = ""
        var rest = text[...]
        while let separator = rest.firstRange(of: "://") {
            let schemeStart =
                rest[..<separator.lowerBound].lastIndex { !($0.isLetter || $0.isNumber || "+-.".contains($0)) }
                .map(rest.index(after:)) ?? rest.startIndex
            let end =
                rest[separator.upperBound...].firstIndex { $0.isWhitespace || "\"'<>`".contains($0) }
                ?? rest.endIndex
            result += rest[..<schemeStart]
            result += mapping(String(rest[schemeStart..<end])) { _ in mark }
            rest = rest[end...]
        }
        return result + rest
    }
}
