import YrdenHTTPServer

/// Who may use the admin API: whoever holds the admin token (when the gateway has one), and never a page of
/// another site.
///
/// A browser sends `Origin` on the requests that could change something from another site's page (CSRF), so
/// any `Origin` but the gateway's own is refused. Without an admin token the listener is loopback-only, and
/// the last way in for a page is DNS rebinding (a foreign name resolving to 127.0.0.1): there the request is
/// same-origin, so the name it used (`Host`) must also be one the gateway answers to as itself. (The router
/// applies that rule to every path first, ``HostPolicy``; it is kept here so this type stands on its own.)
/// Browsers that send `Sec-Fetch-Site` are also taken at their word when they say `cross-site`.
struct AdminAccess: Sendable {
    /// Why a request was refused.
    enum Refusal: Hashable, Sendable {
        case foreignOrigin(String)
        /// The browser says the request comes from another site (`Sec-Fetch-Site: cross-site`), even without
        /// an `Origin` (a navigation or a form the browser sends as a GET).
        case crossSite
        /// Without an admin token, a `Host` that is not a name of this gateway (DNS rebinding).
        case foreignHost(String)
        /// No `Authorization: Bearer` header at all.
        case missingToken
        /// A token that is not the admin token (or another scheme).
        case wrongToken
    }

    private let token: [UInt8]?
    /// Host names (lowercased, IPv6 in brackets) that are the gateway itself besides loopback names: its listen
    /// host and the host of `publicURL`.
    private let ownHosts: Set<String>
    /// `scheme://host[:port]` of `publicURL`, lowercased.
    private let publicOrigin: String?

    init(token: String?, listenHost: String, publicURL: String?) {
        self.token = token.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
        var hosts: Set<String> = [listenHost.contains(":") ? "[\(listenHost.lowercased())]" : listenHost.lowercased()]
        var publicOrigin: String?
        if let publicURL, let authorityStart = publicURL.firstRange(of: "://")?.upperBound {
            let rest = publicURL[authorityStart...]
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            publicOrigin = (publicURL[..<authorityStart] + authority).lowercased()
            hosts.insert(Self.hostName(of: authority.lowercased()))
        }
        self.ownHosts = hosts
        self.publicOrigin = publicOrigin
    }

    /// The reason to refuse a request with these headers, or `nil` to let it through.
    func refusal(for headers: HTTPHeaders) -> Refusal? {
        if headers["Sec-Fetch-Site"]?.lowercased() == "cross-site" {
            return .crossSite
        }
        if let origin = headers["Origin"], !permits(origin: origin, host: headers["Host"]) {
            return .foreignOrigin(origin)
        }
        if token == nil, let host = headers["Host"], !isOwnHost(host.lowercased()) {
            return .foreignHost(host)
        }
        guard let token else { return nil }
        guard let authorization = headers["Authorization"] else { return .missingToken }
        guard let presented = Self.bearerToken(in: authorization) else { return .wrongToken }
        return Self.constantTimeEquals(Array(presented.utf8), token) ? nil : .wrongToken
    }

    /// Whether `origin` is the gateway's own: `publicURL`'s, or the one the request itself was sent to (`Host`).
    func permits(origin: String, host: String?) -> Bool {
        let origin = origin.lowercased()
        if origin == publicOrigin { return true }
        guard let host = host?.lowercased(), origin == "http://\(host)" else { return false }
        return token != nil || isOwnHost(host)
    }

    private func isOwnHost(_ host: String) -> Bool {
        OriginPolicy.isLoopback("http://\(host)") || ownHosts.contains(Self.hostName(of: host))
    }

    /// `host` of `host[:port]`, keeping the brackets of an IPv6 literal.
    static func hostName(of authority: some StringProtocol) -> String {
        HostPolicy.hostName(of: authority)
    }

    /// The credentials of an `Authorization: Bearer <token>` header; `nil` for any other scheme.
    static func bearerToken(in header: String) -> Substring? {
        let trimmed = header.drop { $0 == " " }
        guard trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { return nil }
        let token = trimmed.dropFirst(7).drop { $0 == " " }
        let end = token.lastIndex { $0 != " " }.map { token.index(after: $0) } ?? token.startIndex
        return token.isEmpty ? nil : token[..<end]
    }

    /// Compares in time that depends only on the presented token's length, so timing reveals nothing of the
    /// admin token's bytes.
    static func constantTimeEquals(_ presented: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference: UInt8 = presented.count == expected.count ? 0 : 1
        for index in presented.indices {
            difference |= presented[index] ^ (index < expected.count ? expected[index] : 0)
        }
        return difference == 0
    }
}
