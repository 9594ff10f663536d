import FoundationEssentials
import NIOSSL

/// Where and how to reach one upstream over WebSocket: one JSON-RPC message per text message, subprotocol `mcp`.
package struct WebSocketEndpoint: Sendable {
    /// `ws://` or `wss://`, e.g. `ws://127.0.0.1:9000/ws`.
    package var url: String
    /// Sent on the upgrade request. They often carry secrets: never log their values.
    package var headers: [String: String]
    /// The longest the TCP connect, TLS and the upgrade may take together.
    package var connectTimeout: Duration
    /// How often the connection is pinged; a connection that sends nothing back (no pong, no message) for
    /// `pingInterval + pongTimeout` is dead and closed, so a server that hangs is found without a request.
    package var pingInterval: Duration
    package var pongTimeout: Duration
    /// The largest message the server may send (after its fragments are joined); a larger one ends the
    /// connection, as a larger answer ends an HTTP response.
    package var maxMessageBytes: Int
    /// Frames the server has not taken yet (TCP backpressure, or sent before the upgrade completed) may hold
    /// this many bytes; a frame past it is refused, never queued without bound.
    package var maxQueuedBytes: Int
    /// Supplies `Authorization` for the upgrade request of a server that signs in (OAuth); asked at each connect.
    package var authorizer: (any UpstreamAuthorizer)?
    /// The TLS context of `wss://` (the gateway's ``UpstreamTrust``); nil verifies against the system's roots.
    package var tls: NIOSSLContext?

    package init(
        url: String,
        headers: [String: String],
        connectTimeout: Duration,
        pingInterval: Duration = .seconds(15),
        pongTimeout: Duration = .seconds(10),
        maxMessageBytes: Int = 64 << 20,
        maxQueuedBytes: Int = 64 << 20,
        authorizer: (any UpstreamAuthorizer)? = nil
    ) {
        self.url = url
        self.headers = headers
        self.connectTimeout = connectTimeout
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.maxMessageBytes = maxMessageBytes
        self.maxQueuedBytes = maxQueuedBytes
        self.authorizer = authorizer
    }

    /// The parts of `url` a connection needs.
    struct Target: Sendable, Equatable {
        var secure: Bool
        var host: String
        var port: Int
        /// Path and query, as the upgrade request's target.
        var requestTarget: String
        /// The `Host` header: the host, and the port when it is not the scheme's default.
        var hostHeader: String
    }

    /// `url` taken apart, or an error naming what is wrong with it.
    func target() throws(UpstreamError) -> Target {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "ws" || scheme == "wss"
        else {
            throw UpstreamError(.config, "the WebSocket URL is not an absolute ws:// or wss:// URL")
        }
        guard var host = parsed.host, !host.isEmpty else {
            throw UpstreamError(.config, "the WebSocket URL has no host")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let secure = scheme == "wss"
        let defaultPort = secure ? 443 : 80
        let port = parsed.port ?? defaultPort
        var requestTarget = parsed.path(percentEncoded: true)
        if requestTarget.isEmpty { requestTarget = "/" }
        if let query = parsed.query(percentEncoded: true) { requestTarget += "?" + query }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return Target(
            secure: secure,
            host: host,
            port: port,
            requestTarget: requestTarget,
            hostHeader: port == defaultPort ? shownHost : "\(shownHost):\(port)"
        )
    }
}
