import YrdenConfig

/// Which `Host` names the gateway answers to, on every path, against DNS rebinding.
///
/// A page on a foreign site can make its own name resolve to 127.0.0.1; the browser then sends that name as
/// `Host` and treats the answer as its own, so without this check it could read `/healthz` (server names, their
/// errors), `/metrics` or `/mcp`. A gateway listening on loopback is reached only by the names of this machine
/// (`localhost`, `127.0.0.0/8`, `[::1]`), its listen host, or the host of `publicURL` when a proxy forwards
/// that: any other `Host` is refused. A listener other machines reach is reached by whatever names DNS gives it,
/// so there every `Host` passes; such a listener must have an admin token, which guards what it can change.
package struct HostPolicy: Sendable {
    /// `nil` when every name passes (a listener that is not loopback).
    private let ownHosts: Set<String>?
    /// Verdicts on the `Host` values seen, which a client repeats on every request.
    private let verdicts = VerdictMemo()

    package init(listenHost: String, publicURL: String?) {
        guard ListenAddress.isLoopback(host: listenHost) else {
            ownHosts = nil
            return
        }
        var hosts: Set<String> = [Self.normalized(listenHost)]
        if let publicURL, let authorityStart = publicURL.firstRange(of: "://")?.upperBound {
            let authority = publicURL[authorityStart...].prefix { !"/?#".contains($0) }
            hosts.insert(Self.normalized(Self.hostName(of: authority)))
        }
        ownHosts = hosts
    }

    /// Whether a request with this `Host` header is for this gateway. A request without one (HTTP/1.0) passes:
    /// every browser sends it.
    package func permits(_ host: String?) -> Bool {
        guard let ownHosts, let host else { return true }
        return verdicts.verdict(for: host) { host in
            let name = Self.normalized(Self.hostName(of: host))
            return ListenAddress.isLoopback(host: name) || ownHosts.contains(name)
        }
    }

    /// Lowercased, without IPv6 brackets or a trailing dot (`LOCALHOST.` is `localhost`).
    private static func normalized(_ host: some StringProtocol) -> String {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix("."), name.count > 1 { name.removeLast() }
        return name
    }

    /// `host` of `host[:port]` (user info dropped), keeping the brackets of an IPv6 literal.
    static func hostName(of authority: some StringProtocol) -> String {
        let afterUserInfo = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        if afterUserInfo.hasPrefix("["), let close = afterUserInfo.firstIndex(of: "]") {
            return String(afterUserInfo[...close])
        }
        return String(afterUserInfo.prefix { $0 != ":" })
    }
}
