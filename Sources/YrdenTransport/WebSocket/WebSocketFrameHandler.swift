import NIOCore
import NIOWebSocket

/// The end of an upgraded connection's pipeline: hands each whole message to the connection, answers pings,
/// pings the server itself, and ends the connection on the server's close, a protocol error, or silence.
///
/// Runs on the connection's event loop only. Fragments are joined by `NIOWebSocketFrameAggregator` before
/// they reach it, within the endpoint's message size limit.
final class WebSocketFrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let connection: WebSocketConnection
    private var keepAlive: WebSocketKeepAlive
    private var sentClose = false

    init(connection: WebSocketConnection, pingInterval: Duration, pongTimeout: Duration) {
        self.connection = connection
        self.keepAlive = WebSocketKeepAlive(interval: pingInterval, timeout: pongTimeout)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        keepAlive.start(self, context: context) { handler, context in handler.tick(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        keepAlive.stop()
    }

    /// Pings the server, or ends a connection the server has said nothing on for too long.
    private func tick(context: ChannelHandlerContext) {
        guard !keepAlive.isSilent(on: context.eventLoop) else {
            let silence = Duration(keepAlive.silenceLimit)
            connection.end(
                UpstreamError(.timeout, "the server answered no WebSocket ping for \(silence); the connection is dead")
            )
            context.close(promise: nil)
            return
        }
        let frame = WebSocketFrame(
            fin: true,
            opcode: .ping,
            maskKey: .random(),
            data: context.channel.allocator.buffer(capacity: 0)
        )
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        keepAlive.heard(on: context.eventLoop)
        switch frame.opcode {
        case .text, .binary:
            connection.deliver(Array(frame.unmaskedData.readableBytesView))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readWebSocketErrorCode().map { " (\($0))" } ?? ""
            connection.end(UpstreamError(.network, "the server closed the WebSocket connection\(code)"))
            closeHandshake(context: context, echoing: frame.unmaskedData)
        default:
            break
        }
    }

    /// Answers (or starts) the closing handshake once, then closes the TCP connection.
    private func closeHandshake(context: ChannelHandlerContext, echoing data: ByteBuffer) {
        guard !sentClose else { return }
        sentClose = true
        var payload = data
        if payload.readableBytes > 2 { payload = payload.getSlice(at: payload.readerIndex, length: 2) ?? payload }
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: payload)
        context.writeAndFlush(wrapOutboundOut(frame)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        keepAlive.stop()
        connection.end(UpstreamError(.network, "the server closed the WebSocket connection"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        connection.end(Self.reason(error, limit: connection.endpoint.maxMessageBytes))
        context.close(promise: nil)
    }

    /// What a pipeline error means to an operator.
    static func reason(_ error: any Error, limit: Int) -> UpstreamError {
        switch error {
        case NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge,
            NIOWebSocketFrameAggregator.Error.tooManyFragments,
            NIOWebSocketError.invalidFrameLength:
            return UpstreamError(.protocol, "the server sent a WebSocket message over the limit of \(limit) bytes")
        case let error as NIOWebSocketError:
            return UpstreamError(.protocol, "the server broke the WebSocket protocol: \(error)")
        default:
            return UpstreamError(.network, "the WebSocket connection failed: \(error)")
        }
    }
}
