import FoundationEssentials

/// The parts of an `http://` or `https://` endpoint URL a pooled connection needs: where to connect, what the
/// request line and `Host` header say. Connections are pooled per origin (scheme, host, port).
struct UpstreamOrigin: Sendable, Hashable {
    var secure: Bool
    /// The host to connect to, without the brackets of an IPv6 literal.
    var host: String
    var port: Int
    /// The `Host` header: the host, and the port when it is not the scheme's default.
    var hostHeader: String

    /// `url` taken apart into its origin and its request target (path and query), or `nil` for a URL the pool
    /// does not take (another scheme, user info, no host): those go through AsyncHTTPClient as before.
    static func parse(_ url: String) -> (origin: UpstreamOrigin, requestTarget: String)? {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https", parsed.user == nil, parsed.password == nil,
            var host = parsed.host, !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let secure = scheme == "https"
        let defaultPort = secure ? 443 : 80
        let port = parsed.port ?? defaultPort
        guard (1...65535).contains(port) else { return nil }
        var requestTarget = parsed.path(percentEncoded: true)
        if requestTarget.isEmpty { requestTarget = "/" }
        if let query = parsed.query(percentEncoded: true) { requestTarget += "?" + query }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let origin = UpstreamOrigin(
            secure: secure,
            host: host,
            port: port,
            hostHeader: port == defaultPort ? shownHost : "\(shownHost):\(port)"
        )
        return (origin, requestTarget)
    }

    /// Whether `host` is an address rather than a name (no SNI is sent for an address).
    var hostIsAddress: Bool {
        host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
    }
}
