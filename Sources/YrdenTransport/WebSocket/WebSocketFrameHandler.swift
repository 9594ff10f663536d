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
    private let pingInterval: TimeAmount
    private let silenceLimit: TimeAmount
    /// On the loop's clock (`eventLoop.now`), so a test's loop can move time.
    private var lastHeard = NIODeadline.uptimeNanoseconds(0)
    private var keepAlive: RepeatedTask?
    private var sentClose = false

    init(connection: WebSocketConnection, pingInterval: Duration, pongTimeout: Duration) {
        self.connection = connection
        self.pingInterval = TimeAmount(pingInterval)
        self.silenceLimit = TimeAmount(pingInterval + pongTimeout)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        lastHeard = context.eventLoop.now
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        keepAlive = context.eventLoop.scheduleRepeatedTask(initialDelay: pingInterval, delay: pingInterval) { _ in
            let (handler, context) = loopBound.value
            handler.tick(context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        keepAlive?.cancel()
        keepAlive = nil
    }

    /// Pings the server, or ends a connection the server has said nothing on for too long.
    private func tick(context: ChannelHandlerContext) {
        guard context.eventLoop.now - lastHeard < silenceLimit else {
            connection.end(
                UpstreamError(
                    .timeout,
                    "the server answered no WebSocket ping for \(Duration(silenceLimit)); the connection is dead"
                )
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
        lastHeard = context.eventLoop.now
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
        keepAlive?.cancel()
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

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

extension Duration {
    init(_ amount: TimeAmount) {
        self = .nanoseconds(amount.nanoseconds)
    }
}
