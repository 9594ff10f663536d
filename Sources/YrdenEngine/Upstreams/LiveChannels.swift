import AsyncHTTPClient
import YrdenConfig
import YrdenTransport

/// The gateway's own transports: child processes on the shared reactor, and the one shared HTTP client.
package struct LiveChannels: UpstreamChannelFactory {
    /// `nil` in a gateway built without one (tests of the engine alone): HTTP upstreams then fail to connect
    /// with a message that says so.
    package var httpClient: HTTPClient?
    /// The roots `wss://` servers are verified against; nil: the system's.
    package var trust: UpstreamTrust?
    /// Kept-alive connections for Streamable HTTP POSTs, on the HTTP client's event loops; `https://` ones are
    /// verified against `trust` (without it, they go through the HTTP client).
    private let pools: UpstreamHTTPPools?

    package init(httpClient: HTTPClient? = nil, trust: UpstreamTrust? = nil) {
        self.httpClient = httpClient
        self.trust = trust
        pools = httpClient.map { UpstreamHTTPPools(group: $0.eventLoopGroup, tls: trust?.webSocketContext) }
    }

    package func open(
        _ route: ChannelRoute,
        for spec: ServerSpec,
        handler: UpstreamChannelHandler
    ) throws(UpstreamError) -> any UpstreamChannel {
        switch route {
        case .stdio(let command):
            return try StdioChannel(command: command, handler: handler)
        case .streamableHTTP(let endpoint):
            return StreamableHTTPChannel(
                endpoint: endpoint,
                client: try remoteClient(),
                pools: pools,
                handler: handler
            )
        case .legacySSE(let endpoint):
            return LegacySSEChannel(endpoint: endpoint, client: try remoteClient(), handler: handler)
        case .webSocket(var endpoint):
            endpoint.tls = trust?.webSocketContext
            // The shared HTTP client's event loops carry WebSocket connections too: no threads of their own.
            return WebSocketChannel(endpoint: endpoint, group: try remoteClient().eventLoopGroup, handler: handler)
        }
    }

    private func remoteClient() throws(UpstreamError) -> HTTPClient {
        guard let httpClient else {
            throw UpstreamError(.network, "this gateway was started without an HTTP client for remote upstreams")
        }
        return httpClient
    }
}
