import YrdenConfig
import YrdenTransport

/// Opens the byte channel to one upstream: the live transports in the gateway, scripted fakes in tests
/// (`YrdenTesting.FakeUpstreams`). The engine decides which route to take (the spec's transport, or legacy
/// HTTP+SSE after a server refused Streamable HTTP); the factory only opens it.
package protocol UpstreamChannelFactory: Sendable {
    /// Opens `route` for server `spec`, delivering what arrives to `handler`.
    func open(
        _ route: ChannelRoute,
        for spec: ServerSpec,
        handler: UpstreamChannelHandler
    ) throws(UpstreamError) -> any UpstreamChannel
}

/// One way of reaching an upstream, with everything the transport needs.
package enum ChannelRoute: Sendable {
    case stdio(StdioCommand)
    case streamableHTTP(StreamableHTTPEndpoint)
    case legacySSE(LegacySSEEndpoint)
    case webSocket(WebSocketEndpoint)

    /// `stdio`, `http`, `sse` or `websocket`, as operators see the transport in use.
    package var transportName: String {
        switch self {
        case .stdio: "stdio"
        case .streamableHTTP: "http"
        case .legacySSE: "sse"
        case .webSocket: "websocket"
        }
    }
}
