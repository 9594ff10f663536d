import AsyncHTTPClient

/// An upstream reached over the deprecated HTTP+SSE transport (MCP 2024-11-05).
///
/// A GET opens the server's event stream; its first `endpoint` event names the URL every frame is POSTed to,
/// and every answer and notification arrives on the stream as a `message` event. Frames sent before the
/// endpoint is known wait, in order. An HTTP failure of one POST fails that request alone; the stream
/// ending, or naming no endpoint within the endpoint timeout, closes the channel.
package final class LegacySSEChannel: UpstreamChannel {
    private let connection: LegacySSEConnection
    private let outbox: AsyncStream<OutboundFrame>.Continuation
    private let worker: Task<Void, Never>

    /// Starts the channel's task, which opens the stream at once.
    package init(endpoint: LegacySSEEndpoint, client: HTTPClient, handler: UpstreamChannelHandler) {
        let (work, outbox) = AsyncStream.makeStream(of: OutboundFrame.self)
        let connection = LegacySSEConnection(endpoint: endpoint, client: client, handler: handler)
        self.connection = connection
        self.outbox = outbox
        // Owned by the channel, not its opener: it lives as long as the channel and `close()` ends it.
        worker = Task { await connection.run(work) }
    }

    package func send(_ frame: [UInt8]) throws(UpstreamError) {
        try send(frame, headers: [])
    }

    /// A frame with the W3C trace context headers of its request (`traceparent`, `tracestate`) on its POST; a
    /// request's other headers (a caller's own credentials) are not carried over this transport.
    package func send(_ frame: [UInt8], headers: [(name: String, value: String)]) throws(UpstreamError) {
        var outbound = OutboundFrame(frame)
        outbound.extraHeaders = headers.filter { Self.traceHeaders.contains($0.name.lowercased()) }
        guard connection.isOpen, case .enqueued = outbox.yield(outbound) else {
            throw UpstreamError(.notConnected, "the connection to the server was closed")
        }
    }

    private static let traceHeaders: Set<String> = ["traceparent", "tracestate"]

    /// Stops every request and the stream; closing the stream ends the session on the server.
    package func close() async {
        connection.beginClosing()
        outbox.finish()
        worker.cancel()
        await worker.value
    }
}
