import YrdenProtocol

/// A byte pipe to one upstream that carries one JSON-RPC message per frame.
///
/// Inbound frames and the end of the channel are delivered through the ``UpstreamChannelHandler`` given when
/// the channel is opened; the channel calls it from its own thread, so the handler must be quick and must
/// not block.
package protocol UpstreamChannel: Sendable {
    /// Queues one frame. Never blocks the caller: frames the peer is not reading yet are buffered.
    func send(_ frame: [UInt8]) throws(UpstreamError)
    /// Queues one frame with HTTP headers of its own (2026-07-28's `Mcp-Param-*`); a channel that is not
    /// HTTP sends the frame alone.
    func send(_ frame: [UInt8], headers: [(name: String, value: String)]) throws(UpstreamError)
    /// Ends the channel gracefully and returns when the peer is gone (for a child process: reaped).
    func close() async
}

extension UpstreamChannel {
    package func send(_ frame: [UInt8], headers: [(name: String, value: String)]) throws(UpstreamError) {
        try send(frame)
    }
}

/// Where a channel delivers what it receives.
package struct UpstreamChannelHandler: Sendable {
    package var frame: @Sendable ([UInt8]) -> Void
    /// A frame that arrived as part of the answer to request `id` (on its POST's SSE stream): a request in
    /// it belongs to that request's caller.
    package var relatedFrame: @Sendable ([UInt8], JSONRPCID) -> Void
    /// One request could not be delivered or answered (an HTTP error, a broken response), while the channel
    /// itself lives on: the request with this id fails with the transport's reason, never as a JSON-RPC error.
    package var requestFailed: @Sendable (JSONRPCID, UpstreamError) -> Void
    package var closed: @Sendable (UpstreamError) -> Void
    package var log: @Sendable (String) -> Void

    package init(
        frame: @escaping @Sendable ([UInt8]) -> Void,
        requestFailed: @escaping @Sendable (JSONRPCID, UpstreamError) -> Void = { _, _ in },
        closed: @escaping @Sendable (UpstreamError) -> Void,
        log: @escaping @Sendable (String) -> Void,
        relatedFrame: (@Sendable ([UInt8], JSONRPCID) -> Void)? = nil
    ) {
        self.frame = frame
        self.relatedFrame = relatedFrame ?? { bytes, _ in frame(bytes) }
        self.requestFailed = requestFailed
        self.closed = closed
        self.log = log
    }
}
