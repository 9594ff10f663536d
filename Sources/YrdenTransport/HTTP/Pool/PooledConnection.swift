import NIOCore
import NIOHTTP1

/// One kept-alive HTTP/1.1 connection of a pool, and the handler at the end of its pipeline that hands each
/// answer to its exchange and gives the connection back to the pool when the answer ended.
final class PooledConnection: Sendable, Equatable {
    let channel: any Channel
    let reader: NIOLoopBound<ResponseReader>

    init(channel: any Channel, reader: ResponseReader) {
        self.channel = channel
        self.reader = NIOLoopBound(reader, eventLoop: channel.eventLoop)
    }

    static func == (left: PooledConnection, right: PooledConnection) -> Bool { left === right }

    /// Sends one request, head and body written together in one flush, its answer read into `exchange`; the
    /// connection is closed if `deadline` passes first. Called on any thread; runs on the connection's loop.
    func start(_ head: HTTPRequestHead, body: ByteBuffer?, exchange: PooledExchange, deadline: NIODeadline) {
        let channel = channel
        let reader = reader
        channel.eventLoop.execute {
            guard channel.isActive else {
                exchange.fail(UpstreamError(.network, "the server closed the connection"))
                reader.value.pool.release(self, reusable: false)
                return
            }
            reader.value.begin(exchange, deadline: deadline, channel: channel)
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        }
    }
}

/// Reads answers on one pooled connection, on its event loop only.
final class ResponseReader: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    /// Told when an exchange ended (reusable or not), or an idle connection closed.
    let pool: UpstreamHTTPPool
    /// Set once the connection is made, before any exchange; let go when the pipeline is torn down.
    var connection: PooledConnection?
    private var exchange: PooledExchange?
    private var deadlineTimer: Scheduled<Void>?
    private var eventStream = false
    private var keepAlive = false
    private var paused = false
    private var context: ChannelHandlerContext?

    init(pool: UpstreamHTTPPool) {
        self.pool = pool
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        connection = nil
    }

    func begin(_ exchange: PooledExchange, deadline: NIODeadline, channel: any Channel) {
        self.exchange = exchange
        eventStream = false
        keepAlive = false
        let reader = NIOLoopBound(self, eventLoop: channel.eventLoop)
        deadlineTimer = channel.eventLoop.scheduleTask(deadline: deadline) {
            reader.value.finish(exchange, failure: UpstreamError(.timeout, "the server did not answer in time"))
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let exchange else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            eventStream = head.headers.first(name: "Content-Type")?.lowercased().hasPrefix("text/event-stream") == true
            keepAlive = head.isKeepAlive
            exchange.received(head)
        case .body(let chunk):
            if exchange.received(chunk, eventStream: eventStream) {
                paused = true
                context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
            }
        case .end:
            finish(exchange, failure: nil)
        }
    }

    /// Reads again after the exchange's task took enough of the body.
    func resumeReading() {
        guard paused, let context else { return }
        paused = false
        context.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let exchange {
            finish(exchange, failure: UpstreamError(.network, "the server closed the connection before answering"))
        } else if let connection {
            pool.closedIdle(connection)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let exchange {
            finish(exchange, failure: UpstreamError(.network, "the connection to the server failed: \(error)"))
        }
        context.close(promise: nil)
    }

    /// Ends the current exchange once: its end, or `failure` (the connection is then closed, not reused).
    func finish(_ exchange: PooledExchange, failure: (any Error)?) {
        guard self.exchange === exchange, let connection else { return }
        self.exchange = nil
        deadlineTimer?.cancel()
        deadlineTimer = nil
        let reusable = failure == nil && keepAlive && (context?.channel.isActive ?? false)
        if reusable { resumeReading() } else { context?.close(promise: nil) }
        // Given back first: an answer handed over below may run its request's task here for a while.
        pool.release(connection, reusable: reusable)
        if let failure { exchange.fail(failure) } else { exchange.ended() }
    }
}

extension PooledConnection {
    /// Reads again after a paused body was taken (called off the loop).
    func resumeReading() {
        let reader = reader
        channel.eventLoop.execute { reader.value.resumeReading() }
    }
}
