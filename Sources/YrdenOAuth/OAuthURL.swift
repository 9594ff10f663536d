/// An absolute `http` or `https` URL split into the parts OAuth works with.
///
/// Parsing is strict on purpose: these URLs come from metadata documents and challenges that a server wrote,
/// and they decide where the gateway sends credentials. Userinfo (`user@host`), whitespace, control
/// characters and other schemes are refused. Scheme and host are lowercased and a default port is dropped,
/// so two spellings of one origin compare equal; the path and query are kept byte for byte. A fragment is
/// dropped, as RFC 8707 asks of resource indicators.
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
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }), let colon = text.firstIndex(of: ":") else {
            return nil
        }
        let scheme = text[..<colon].lowercased()
        guard scheme == "http" || scheme == "https", text[colon...].hasPrefix("://") else { return nil }
        var rest = text[text.index(colon, offsetBy: 3)...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@"), let hostAndPort = Self.hostAndPort(authority) else { return nil }
        let remainder = rest[authorityEnd...]
        if let question = remainder.firstIndex(of: "?") {
            path = String(remainder[..<question])
            query = String(remainder[remainder.index(after: question)...])
        } else {
            path = String(remainder)
            query = nil
        }
        self.scheme = scheme
        host = hostAndPort.host
        port = hostAndPort.port == (scheme == "https" ? 443 : 80) ? nil : hostAndPort.port
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

    /// `host[:port]` split, with the host lowercased; nil for an empty host or a port outside 1–65535.
    private static func hostAndPort(_ authority: Substring) -> (host: String, port: Int?)? {
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty, host != "[]" else { return nil }
        var port: Int?
        if let portText, !portText.isEmpty {
            guard portText.allSatisfy(\.isASCII), let value = Int(portText), (1...65535).contains(value) else {
                return nil
            }
            port = value
        }
        return (host.lowercased(), port)
    }
}
