import NIOCore
import NIOWebSocket
import YrdenTransport

/// The end of a downstream WebSocket's pipeline: hands each whole message to the socket's
/// ``DownstreamWebSocket``, answers pings and the client's close, pings the client itself, and closes the
/// socket on a message over the limit (1009), a broken frame (1002), or silence.
///
/// Runs on the channel's event loop only. Fragments are joined by `NIOWebSocketFrameAggregator` before they
/// reach it, within the message limit.
final class DownstreamFrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let socket: DownstreamWebSocket
    private var keepAlive: WebSocketKeepAlive

    init(socket: DownstreamWebSocket) {
        self.socket = socket
        self.keepAlive = WebSocketKeepAlive(interval: socket.limits.pingInterval, timeout: socket.limits.pongTimeout)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        keepAlive.start(self, context: context) { handler, context in handler.tick(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        keepAlive.stop()
    }

    /// Pings the client, or closes the socket of one that said nothing for too long.
    private func tick(context: ChannelHandlerContext) {
        guard !keepAlive.isSilent(on: context.eventLoop) else {
            context.close(promise: nil)
            return
        }
        // A client that answers pings still uses its session, however long it stays quiet otherwise.
        socket.touchSession()
        let ping = WebSocketFrame(fin: true, opcode: .ping, data: context.channel.allocator.buffer(capacity: 0))
        context.writeAndFlush(wrapOutboundOut(ping), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        keepAlive.heard(on: context.eventLoop)
        switch frame.opcode {
        case .text, .binary:
            guard !socket.isClosing else { return }
            if socket.received(Array(frame.unmaskedData.readableBytesView)) {
                // Too many messages wait for the connection: read nothing more until it catches up.
                try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
            }
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            if socket.isClosing {
                // The answer to the gateway's own close.
                context.close(promise: nil)
                return
            }
            // Echo the client's code (RFC 6455 §5.5.1), then close once it is sent.
            var payload = frame.unmaskedData
            if payload.readableBytes > 2 { payload = payload.getSlice(at: payload.readerIndex, length: 2) ?? payload }
            socket.ended()
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)
            context.writeAndFlush(wrapOutboundOut(close)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        keepAlive.stop()
        socket.ended()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge,
            NIOWebSocketFrameAggregator.Error.tooManyFragments,
            NIOWebSocketError.invalidFrameLength:
            socket.refuseOversized()
        case is NIOWebSocketError, is NIOWebSocketFrameAggregator.Error:
            socket.close(.protocolError, "the client broke the WebSocket protocol")
        default:
            // After its own close the decoder refuses what follows; the close frame on its way still goes first.
            if !socket.isClosing { context.close(promise: nil) }
        }
    }
}

/// The bytes the client sent right behind its upgrade request, which libmicrohttpd had read already: handed
/// to the frame decoder before anything read from the socket, then out of the way.
final class LeftoverBytes: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: bytes)))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
