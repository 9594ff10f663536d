/// Which browser origins may talk to the MCP endpoint, against DNS rebinding.
///
/// Requests without `Origin` (every non-browser client) pass. A browser origin passes when it is on this
/// machine (`localhost`, `127.0.0.1`, `[::1]`) or listed in `gateway.allowedOrigins`; anything else gets 403.
package struct OriginPolicy: Sendable {
    package var allowed: Set<String>

    package init(allowed: [String]) {
        self.allowed = Set(allowed.map { $0.lowercased() })
    }

    package func permits(_ origin: String?) -> Bool {
        guard let origin, !origin.isEmpty else { return true }
        let lowered = origin.lowercased()
        if allowed.contains(lowered) || allowed.contains("*") { return true }
        return Self.isLoopback(lowered)
    }

    static func isLoopback(_ origin: String) -> Bool {
        guard let colon = origin.firstIndex(of: ":"), origin[colon...].hasPrefix("://") else { return false }
        var host = origin[origin.index(colon, offsetBy: 3)...]
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            return host[...close] == "[::1]"
        }
        if let colon = host.firstIndex(of: ":") { host = host[..<colon] }
        return host == "localhost" || host == "127.0.0.1" || host.hasSuffix(".localhost")
    }
}
