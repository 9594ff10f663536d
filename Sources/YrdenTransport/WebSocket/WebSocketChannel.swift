import NIOCore
import NIOWebSocket

/// An upstream reached over WebSocket: one connection carries every message both ways, one JSON-RPC message
/// per text message.
///
/// The channel's task connects at once; frames sent before the upgrade completes wait, in order, within the
/// endpoint's byte bound. The connection's end (the server closing it, silence past the keep-alive, a message
/// over the size limit) closes the channel, and the server's reconnect policy takes it from there.
package final class WebSocketChannel: UpstreamChannel {
    private let connection: WebSocketConnection
    private let worker: Task<Void, Never>

    /// Starts connecting on `group` (the shared HTTP client's event loops).
    package init(endpoint: WebSocketEndpoint, group: any EventLoopGroup, handler: UpstreamChannelHandler) {
        let connection = WebSocketConnection(endpoint: endpoint, handler: handler)
        self.connection = connection
        worker = Task { await Self.connect(connection, group: group) }
    }

    package func send(_ frame: [UInt8]) throws(UpstreamError) {
        try connection.send(frame)
    }

    /// Sends the close frame and waits (briefly) for the server to close its end.
    /// A connection still being opened is closed by its task as soon as it opens.
    package func close() async {
        let channel = connection.beginClosing()
        worker.cancel()
        guard let channel else { return }
        let frame = WebSocketFrame(
            fin: true,
            opcode: .connectionClose,
            maskKey: .random(),
            data: ByteBuffer(bytes: [0x03, 0xE8])
        )
        channel.writeAndFlush(frame, promise: nil)
        let forced = channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        try? await channel.closeFuture.get()
        forced.cancel()
    }

    /// Connects, with one more try when the server refused a token the authorizer could refresh.
    private static func connect(_ connection: WebSocketConnection, group: any EventLoopGroup) async {
        let endpoint = connection.endpoint
        do throws(UpstreamError) {
            let target = try endpoint.target()
            for attempt in 0..<2 {
                let authorization = try await endpoint.authorizer?.authorization()
                let outcome = try await WebSocketUpgrade.open(
                    endpoint,
                    target: target,
                    authorization: authorization,
                    connection: connection,
                    group: group
                )
                switch outcome {
                case .upgraded(let channel):
                    if !connection.opened(channel) { channel.close(promise: nil) }
                    return
                case .refused(let status, let challenge):
                    let refusedToken = status == 401 || status == 403
                    if refusedToken, attempt == 0, let authorization, let authorizer = endpoint.authorizer,
                        await authorizer.rejected(authorization, status: status, challenge: challenge)
                    {
                        continue
                    }
                    throw UpstreamError(
                        refusedToken ? .auth : .http,
                        "the server refused the WebSocket upgrade with HTTP \(status)",
                        httpStatus: status
                    )
                }
            }
        } catch {
            connection.end(error)
        }
    }
}
