import YrdenProtocol

/// What an upstream says on its own: notifications, and the end of the connection.
package enum UpstreamEvent: Sendable {
    case notification(JSONRPCNotification)
    case closed(UpstreamError)
}

/// What the upstream told the gateway when it connected.
package struct UpstreamHandshake: Sendable, Hashable {
    package var protocolVersion: String
    package var capabilities: JSONObject
    package var serverInfo: JSONValue
    package var instructions: String?
}

/// Per-request options: how long to wait and where progress goes.
package struct RequestOptions: Sendable {
    package var timeout: Duration
    /// With progress, the deadline moves forward by `timeout` each time, up to this.
    package var maxTotalTimeout: Duration
    /// Receives the params of each `notifications/progress` for this request (with the upstream's token).
    package var onProgress: (@Sendable (JSONValue) -> Void)?
    package var handle: CallHandle?
    /// Where the upstream's requests during this one (sampling, elicitation, roots) go.
    package var relay: (any ServerRequestRelay)?
    /// For a 2026-07-28 server: what the client can do for this request alone, in place of the stamp's.
    package var clientCapabilities: JSONObject?
    /// Log messages the server sends as part of this request (on its POST's stream); with a 2026-07-28
    /// server, `logLevel` also asks for them.
    package var onMessage: (@Sendable (JSONValue) -> Void)?
    package var logLevel: LoggingLevel?
    /// The client asked for log messages of this request alone (2026-07-28's `_meta.logLevel`), not for a
    /// session (`logging/setLevel`, whose messages reach it as the upstream's events). A handshake-era server
    /// does not say which request a message on its pipe or GET stream is of: it is this one's while no other
    /// request in flight asked.
    package var asksForLogs = false
    /// HTTP headers of this request alone (2026-07-28's `Mcp-Param-*`); other transports ignore them.
    package var headers: [(name: String, value: String)] = []
    /// How long past its deadline the request still waits before it times out, so that a channel's own
    /// reason due at that same deadline (a legacy stream that never named its endpoint) is the one reported.
    package var grace: Duration

    package init(
        timeout: Duration,
        maxTotalTimeout: Duration? = nil,
        onProgress: (@Sendable (JSONValue) -> Void)? = nil,
        handle: CallHandle? = nil,
        relay: (any ServerRequestRelay)? = nil,
        clientCapabilities: JSONObject? = nil,
        grace: Duration = .zero
    ) {
        self.timeout = timeout
        self.maxTotalTimeout = maxTotalTimeout ?? timeout
        self.onProgress = onProgress
        self.handle = handle
        self.relay = relay
        self.clientCapabilities = clientCapabilities
        self.grace = grace
    }
}
