/// Where a URL carries credentials: the password of its user info, and the values of query parameters whose
/// names say they hold one (`api_key`, `token`, `sig`…).
///
/// Found by hand, like the other URL rules, so that text which is not quite a URL (an invalid one being
/// reported, an error message quoting one) is handled the same way.
package enum URLCredentials {
    /// Words that make a query parameter a credential when its name contains one.
    package static let secretQueryWords = ["key", "token", "secret", "password", "auth", "sig", "credential", "code"]

    /// `url` with `transform` applied to each non-empty credential in it, everything else as it was.
    package static func mapping(_ url: String, _ transform: (String) -> String) -> String {
        var result = url
        if let scheme = result.firstRange(of: "://") {
            let authorityEnd = result[scheme.upperBound...].firstIndex { "/?#".contains($0) } ?? result.endIndex
            let authority = result[scheme.upperBound..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                let password = String(authority[authority.index(after: colon)..<at])
                if !password.isEmpty {
                    result.replaceSubrange(authority.index(after: colon)..<at, with: transform(password))
                }
            }
        }
        guard let question = result.firstIndex(of: "?") else { return result }
        let fragmentStart = result[question...].firstIndex(of: "#") ?? result.endIndex
        let parameters = result[result.index(after: question)..<fragmentStart].split(
            separator: "&",
            omittingEmptySubsequences: false
        )
        let query = parameters.map { parameter -> String in
            guard let equals = parameter.firstIndex(of: "=") else { return String(parameter) }
            let name = parameter[..<equals].lowercased()
            let value = String(parameter[parameter.index(after: equals)...])
            guard secretQueryWords.contains(where: { name.contains($0) }), !value.isEmpty else {
                return String(parameter)
            }
            return "\(parameter[..<equals])=\(transform(value))"
        }
        return String(result[...question]) + query.joined(separator: "&") + String(result[fragmentStart...])
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
