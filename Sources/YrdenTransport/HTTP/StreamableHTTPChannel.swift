import AsyncHTTPClient

/// An upstream reached over MCP Streamable HTTP (revision 2025-03-26 and later).
///
/// Every frame becomes a POST, sent from a task the channel owns so ``send(_:)`` never waits. Answers come
/// back as JSON or as an SSE stream, parsed as the bytes arrive so progress reaches the caller mid-call.
/// After `notifications/initialized` the channel keeps the server's GET stream open for unsolicited
/// messages. An HTTP failure of one request becomes a JSON-RPC error for that request alone; the channel
/// reports `closed` only when the server ended the session (404) or stopped answering altogether.
package final class StreamableHTTPChannel: UpstreamChannel {
    private let connection: HTTPConnection
    private let outbox: AsyncStream<HTTPConnection.Work>.Continuation
    private let worker: Task<Void, Never>

    /// Starts the channel's task; nothing is sent until the first frame.
    /// POSTs go through `pools` (the origin's kept-alive connections) when given, else through `client`, which
    /// carries the GET stream and 2026-07-28 listen streams in any case.
    package init(
        endpoint: StreamableHTTPEndpoint,
        client: HTTPClient,
        pools: UpstreamHTTPPools? = nil,
        handler: UpstreamChannelHandler
    ) {
        let (work, outbox) = AsyncStream.makeStream(of: HTTPConnection.Work.self)
        let connection = HTTPConnection(
            endpoint: endpoint,
            client: client,
            pools: pools,
            handler: handler,
            outbox: outbox
        )
        self.connection = connection
        self.outbox = outbox
        // Owned by the channel, not its opener: it lives as long as the channel and `close()` ends it.
        worker = Task { await connection.run(work) }
    }

    package func send(_ frame: [UInt8]) throws(UpstreamError) {
        try send(frame, headers: [])
    }

    package func send(_ frame: [UInt8], headers: [(name: String, value: String)]) throws(UpstreamError) {
        var outbound = OutboundFrame(frame)
        outbound.extraHeaders = headers
        guard !connection.isClosing, case .enqueued = outbox.yield(.post(outbound)) else {
            throw UpstreamError(.notConnected, "the connection to the server was closed")
        }
    }

    /// Stops every request and the GET stream, then ends the session on the server (errors ignored).
    package func close() async {
        connection.beginClosing()
        outbox.finish()
        worker.cancel()
        await worker.value
        await connection.endSession()
    }
}
