/// The `gateway` section: how the gateway itself listens and protects itself.
///
/// Defaults are the safe ones (loopback, 16 MiB bodies, no origins allowed besides the gateway's own), so an
/// empty section is a working, private gateway.
package struct GatewaySettings: Sendable, Hashable {
    /// Host to bind, without brackets for IPv6 (`"::1"`).
    package var listenHost: String
    package var listenPort: Int
    /// Between prefix and name in aggregated tool and prompt names: `<prefix><separator><tool>`.
    package var toolSeparator: String
    /// Bearer token for the admin API; `nil` when unset or empty.
    package var adminToken: String?
    /// Bearer tokens MCP clients must present on `/mcp`; empty means the endpoint is open (to loopback).
    package var clientTokens: [String]
    /// The gateway as an OAuth-protected resource (`gateway.auth`); `nil`: only `clientTokens`, if any.
    package var auth: ResourceAuthSettings?
    /// Browser origins allowed to call the MCP endpoint, `scheme://host[:port]`.
    package var allowedOrigins: [String]
    /// Proxies (addresses or networks) whose `X-Forwarded-For` names the client; none by default.
    package var trustedProxies: [String] = []
    /// Largest request body accepted; bigger ones are answered with 413.
    package var maxBodyBytes: Int
    /// Where OAuth tokens and servers added at runtime are kept.
    package var dataDir: String?
    /// The externally visible base URL, when the gateway sits behind a proxy.
    package var publicURL: String?
    /// How the other replicas reach this one (see ``replicaAddress``).
    package var replicaURL: String?
    /// A loopback listener of its own for OAuth redirects; `nil` serves `/oauth/callback` on the main listener.
    package var oauthCallback: ListenAddress?
    /// Most MCP sessions open at once; past it a new `initialize` is refused, so clients cannot grow memory.
    package var maxSessions: Int
    /// Most of those one client holds (per credential, else per address), so one client cannot take them all.
    package var maxSessionsPerClient: Int
    /// A session unused for this long ends, so that clients that vanish without DELETE do not keep memory.
    package var sessionIdleTimeout: Duration
    /// Whether the web console is served at `/`.
    package var console: Bool
    /// The MCP Apps sandbox listener, an origin of its own for app pages; `nil` takes ``appsSandbox``'s default.
    package var appsListen: ListenAddress?
    /// How long the first `initialize` and list requests wait for every enabled server's first connection
    /// attempt, so a client that starts with the gateway sees the whole catalog; zero answers at once.
    package var startupWait: Duration
    /// How often the gateway pings a downstream WebSocket client (`/ws`); one that sends nothing, not even a
    /// pong, for this plus ``webSocketPongTimeout`` is gone and its socket closed.
    package var webSocketPingInterval: Duration = defaultWebSocketPingInterval
    package var webSocketPongTimeout: Duration = defaultWebSocketPongTimeout

    package static let defaultListenHost = "127.0.0.1"
    package static let defaultListenPort = 8750
    package static let defaultToolSeparator = "__"
    package static let defaultMaxBodyBytes = 16 * 1024 * 1024
    /// A body is held in memory whole, so the limit stays far below what any size arithmetic could overflow.
    package static let maxBodyBytesRange = 1...(1024 * 1024 * 1024)
    package static let defaultMaxSessions = 10_000
    package static let defaultMaxSessionsPerClient = 256
    package static let defaultSessionIdleTimeout: Duration = .seconds(900)
    package static let defaultStartupWait: Duration = .seconds(5)
    package static let defaultWebSocketPingInterval: Duration = .seconds(15)
    package static let defaultWebSocketPongTimeout: Duration = .seconds(15)
    /// Whole seconds either WebSocket key takes: a ping at least every hour, so a dead client is noticed.
    package static let webSocketSecondsRange = 1...3600

    package init(
        listenHost: String = defaultListenHost,
        listenPort: Int = defaultListenPort,
        toolSeparator: String = defaultToolSeparator,
        adminToken: String? = nil,
        clientTokens: [String] = [],
        allowedOrigins: [String] = [],
        maxBodyBytes: Int = defaultMaxBodyBytes,
        dataDir: String? = nil,
        publicURL: String? = nil,
        oauthCallback: ListenAddress? = nil,
        maxSessions: Int = defaultMaxSessions,
        maxSessionsPerClient: Int = defaultMaxSessionsPerClient,
        sessionIdleTimeout: Duration = defaultSessionIdleTimeout,
        startupWait: Duration = defaultStartupWait,
        console: Bool = true,
        appsListen: ListenAddress? = nil
    ) {
        self.listenHost = listenHost
        self.listenPort = listenPort
        self.toolSeparator = toolSeparator
        self.adminToken = adminToken
        self.clientTokens = clientTokens
        self.allowedOrigins = allowedOrigins
        self.maxBodyBytes = maxBodyBytes
        self.dataDir = dataDir
        self.publicURL = publicURL
        self.oauthCallback = oauthCallback
        self.maxSessions = maxSessions
        self.maxSessionsPerClient = maxSessionsPerClient
        self.sessionIdleTimeout = sessionIdleTimeout
        self.startupWait = startupWait
        self.console = console
        self.appsListen = appsListen
    }

    /// Where the MCP Apps sandbox listens: `appsListen`, else the listen host on the next port (an ephemeral
    /// one when the gateway's own is); `nil` when the console is off, since only the console frames apps.
    package var appsSandbox: ListenAddress? {
        guard console else { return nil }
        if let appsListen { return appsListen }
        let port = listenPort == 0 || listenPort == 65535 ? 0 : listenPort + 1
        return ListenAddress(host: listenHost, port: port)
    }

    /// Whether only this machine can reach the listener (`localhost`, `127.0.0.0/8`, `::1`).
    package var isLoopback: Bool {
        ListenAddress.isLoopback(host: listenHost)
    }

    /// `HOST:PORT` as an operator would write it, with brackets around IPv6 hosts.
    package var listenAddress: String {
        ListenAddress(host: listenHost, port: listenPort).description
    }

    /// The security default: a listener other machines can reach must have an admin token. `nil` when fine.
    ///
    /// Exposed so that callers which change `listenHost` after decoding (a `--listen` flag) can check again.
    package var exposureProblem: ConfigProblem? {
        guard !isLoopback, adminToken == nil else { return nil }
        return ConfigProblem(
            path: "gateway.listen",
            message: "binding \(listenHost) exposes the admin API",
            fix: "set gateway.adminToken (or YRDEN_ADMIN_TOKEN), or listen on 127.0.0.1"
        )
    }
}

extension GatewaySettings {
    /// How the other replicas reach this one: `replicaURL`, or else the listener's own address when it is a
    /// definite one (not a wildcard, not a port chosen at start); `nil` when neither says.
    package var replicaAddress: String? {
        if let replicaURL { return replicaURL.hasSuffix("/") ? String(replicaURL.dropLast()) : replicaURL }
        guard listenHost != "0.0.0.0", listenHost != "::", listenPort != 0 else { return nil }
        return "http://\(listenHost.contains(":") ? "[\(listenHost)]" : listenHost):\(listenPort)"
    }
}
