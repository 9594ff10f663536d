/// Rules for values that end up on the network: URLs, browser origins and HTTP headers.
///
/// Checked without a URL parser on purpose: the questions are narrow (absolute? http or https? a host?), and a
/// header value with a line break must be refused before it can split a request. Messages quote `shown`, the
/// value as written in the file, so a token that `${VAR}` put into a URL never reaches a log line, and even
/// then with the credentials written into it redacted (problems reach admin API answers and logs).
extension ConfigRules {
    /// An absolute `http` or `https` URL with a host.
    static func checkHTTPURL(_ url: String, shown: String? = nil) -> Finding? {
        checkURL(url, shown: shown, schemes: ["http", "https"], example: "https://example.com/mcp")
    }

    /// A WebSocket server's URL: `ws://` or `wss://`, with the same rules for the rest as an http URL.
    static func checkWebSocketURL(_ url: String, shown: String? = nil) -> Finding? {
        checkURL(url, shown: shown, schemes: ["ws", "wss"], example: "wss://example.com/mcp")
    }

    /// An absolute URL of one of `schemes` (the first is the plain one, the second its TLS form).
    private static func checkURL(_ url: String, shown: String?, schemes: [String], example: String) -> Finding? {
        let quoted = ConfigDocument.redactedURL(shown ?? url).quoted
        let fix = "write an absolute \(schemes[0]):// or \(schemes[1]):// URL, e.g. \(example.quoted)"
        guard let authority = authority(of: url, schemes: schemes) else {
            return Finding(message: "\(quoted) is not an absolute \(schemes[0]) or \(schemes[1]) URL", fix: fix)
        }
        if let finding = checkAuthority(authority, quoted: quoted) { return finding }
        guard !url.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }) else {
            return Finding(
                message: "\(quoted) contains whitespace",
                fix: "percent-encode spaces as %20, or remove stray whitespace"
            )
        }
        return nil
    }

    /// A browser origin: `scheme://host[:port]`, nothing after it.
    static func checkOrigin(_ origin: String, shown: String? = nil) -> Finding? {
        let quoted = ConfigDocument.redactedURL(shown ?? origin).quoted
        let fix = "write an origin as scheme://host[:port] with no path, e.g. \"http://localhost:3000\""
        guard let separator = origin.firstRange(of: "://"), isScheme(origin[..<separator.lowerBound]) else {
            return Finding(message: "\(quoted) is not an origin", fix: fix)
        }
        let authority = origin[separator.upperBound...]
        guard !authority.contains(where: { "/?#".contains($0) }) else {
            return Finding(message: "origin \(quoted) has a path", fix: fix)
        }
        return checkAuthority(authority.unicodeScalars, quoted: quoted).map { Finding(message: $0.message, fix: fix) }
    }

    /// Header names are HTTP tokens; values may not contain line breaks or NUL.
    static func checkHeader(name: String, value: String) -> Finding? {
        let tokenPunctuation = "!#$%&'*+-.^_`|~"
        let validName =
            !name.isEmpty
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || tokenPunctuation.contains($0)) }
        guard validName else {
            return Finding(
                message: "\(name.quoted) is not a valid HTTP header name",
                fix: "use letters, digits and - (for example \"Authorization\" or \"X-Api-Key\")"
            )
        }
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            return Finding(
                message: "the value of header \(name.quoted) contains a line break",
                fix: "remove line breaks from the value (check the environment variable it expands from)"
            )
        }
        return nil
    }

    private static func isScheme(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    /// What follows `scheme://` up to the path, or `nil` when the scheme is missing or not one of `schemes`.
    /// Read by Unicode scalar: a combining mark right after `://` must not hide it.
    private static func authority(of url: String, schemes: [String]) -> Substring.UnicodeScalarView? {
        let scalars = url.unicodeScalars
        guard let separator = scalars.firstRange(of: "://".unicodeScalars) else { return nil }
        let scheme = String(scalars[..<separator.lowerBound]).lowercased()
        guard schemes.contains(scheme) else { return nil }
        let rest = Substring(url).unicodeScalars[separator.upperBound...]
        return rest[..<(rest.firstIndex { "/?#".unicodeScalars.contains($0) } ?? rest.endIndex)]
    }

    /// `[userinfo@]host[:port]` with a non-empty host and a numeric port up to 65535. Read by Unicode scalar,
    /// not by character: a combining mark after `@` or `[` must not hide the delimiter.
    private static func checkAuthority(_ authority: Substring.UnicodeScalarView, quoted: String) -> Finding? {
        let hostStart = authority.lastIndex(of: "@").map(authority.index(after:)) ?? authority.startIndex
        let hostAndPort = authority[hostStart...]
        var host = hostAndPort
        var port: Substring.UnicodeScalarView?
        if hostAndPort.first == "[" {
            guard let close = hostAndPort.firstIndex(of: "]") else {
                return Finding(
                    message: "\(quoted) has an unclosed \"[\"",
                    fix: "close the IPv6 address with \"]\""
                )
            }
            host = hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close]
            let rest = hostAndPort[hostAndPort.index(after: close)...]
            if rest.first == ":" { port = rest.dropFirst() } else if !rest.isEmpty { host = rest[rest.endIndex...] }
        } else if let colon = hostAndPort.lastIndex(of: ":") {
            host = hostAndPort[..<colon]
            port = hostAndPort[hostAndPort.index(after: colon)...]
        }
        guard !host.isEmpty else {
            return Finding(message: "\(quoted) has no host", fix: "put a host name after ://")
        }
        if let port, !port.isEmpty {
            guard port.count <= 5, port.allSatisfy({ ("0"..."9").contains($0) }), let number = Int(String(port)),
                number <= 65535
            else {
                return Finding(message: "\(quoted) has an invalid port", fix: "use a port from 1 to 65535")
            }
        }
        return nil
    }
}
