import FoundationEssentials

/// An absolute `http` or `https` URL split into the parts OAuth works with.
///
/// Parsing is strict on purpose: these URLs come from metadata documents and challenges that a server wrote,
/// and they decide where the gateway sends credentials. FoundationEssentials' RFC 3986 parser splits the text,
/// told not to repair it, so whitespace, control characters, backslashes, a second `@`, non-ASCII text and a
/// malformed `%` escape are refused, not encoded away; on top of it userinfo (`user@host`), other schemes, a
/// host that is not plain ASCII letters, digits, `-`, `_` and `.` (or an IPv6 literal), and a port outside
/// 1–65535 are refused. Scheme and host are lowercased and a default port is dropped, so two spellings of one
/// origin compare equal; the path and query are kept byte for byte. A fragment is dropped, as RFC 8707 asks of
/// resource indicators.
struct OAuthURL: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    var scheme: String
    /// The host, lowercased; an IPv6 literal keeps its brackets (`[::1]`).
    var host: String
    /// The port when it is not the scheme's default.
    var port: Int?
    /// Empty, or starting with `/`.
    var path: String
    /// The query without its `?`, when there is one.
    var query: String?

    init?(_ text: String) {
        guard let parts = URLComponents(string: text, encodingInvalidCharacters: false),
            let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
            parts.percentEncodedUser == nil, parts.percentEncodedPassword == nil,
            let host = parts.percentEncodedHost.flatMap(Self.host), let port = Self.port(of: parts)
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port == (scheme == "https" ? 443 : 80) ? nil : port
        path = parts.percentEncodedPath
        query = parts.percentEncodedQuery
    }

    /// `scheme://host[:port]`: where a request goes, and what a token is bound to.
    var origin: String {
        port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }

    /// The URL as text (without the fragment).
    var description: String {
        origin + path + (query.map { "?" + $0 } ?? "")
    }

    /// The canonical form RFC 8707 and the MCP spec ask for as the `resource` parameter: lowercase scheme and
    /// host, no default port, no fragment, and no lone trailing `/` for a URL that names a whole host.
    var canonicalResource: String {
        origin + (path == "/" ? "" : path) + (query.map { "?" + $0 } ?? "")
    }

    /// The path without terminating slashes: what RFC 8414 and RFC 9728 insert into well-known URLs.
    var trimmedPath: String {
        var path = Substring(path)
        while path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    /// Whether the host is this machine: `localhost` (or a name under it), `127.0.0.0/8` or `[::1]`.
    var isLoopback: Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Whether this URL is `resource` itself or lies under it (same origin, a path below it at a `/`).
    func isWithin(_ resource: OAuthURL) -> Bool {
        guard origin == resource.origin else { return false }
        let parent = resource.path == "/" ? "" : resource.path
        let child = path == "/" ? "" : path
        if child == parent { return resource.query == nil || query == resource.query }
        guard resource.query == nil else { return false }
        return parent.hasSuffix("/") ? child.hasPrefix(parent) : child.hasPrefix(parent + "/")
    }

    /// The host lowercased; nil unless it is a name or IPv4 address of ASCII letters, digits, `-`, `_` and `.`,
    /// or an IPv6 literal in brackets. A percent-encoded host (`x%2Eexample`, `a%40b`) is refused: it would be
    /// one host to this check and another once decoded.
    private static func host(_ text: String) -> String? {
        let bytes = text.utf8
        if bytes.first == UInt8(ascii: "[") {
            let inner = bytes.dropFirst().dropLast()
            guard bytes.last == UInt8(ascii: "]"), inner.contains(UInt8(ascii: ":")),
                inner.allSatisfy({ $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") || $0.isASCIIHexDigit })
            else { return nil }
        } else {
            guard !bytes.isEmpty,
                bytes.allSatisfy({
                    $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                        || $0 == UInt8(ascii: ".")
                })
            else { return nil }
        }
        return text.lowercased()
    }

    /// The port as written (FoundationEssentials' own `port` is nil for one too large for an `Int`, as if
    /// none were written); `.some(nil)` for none or an empty one, nil for one outside 1–65535.
    private static func port(of parts: URLComponents) -> Int?? {
        guard let range = parts.rangeOfPort, let string = parts.string, !string[range].isEmpty else {
            return .some(nil)
        }
        let digits = string[range].utf8
        guard digits.count <= 5, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let value = Int(string[range]), (1...65535).contains(value)
        else { return nil }
        return value
    }
}

extension UInt8 {
    fileprivate var isASCIIHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }

    fileprivate var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
}
