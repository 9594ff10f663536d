import NIOCore

/// The keep-alive both ends of a WebSocket run, upstream and downstream: every `interval` the handler pings
/// its peer, unless the peer has sent nothing at all (no message, no pong) for `interval + timeout`, which
/// means it is gone. Lives in its handler, on the channel's event loop; time is the loop's (`eventLoop.now`),
/// so a test's loop can move it.
package struct WebSocketKeepAlive {
    package let interval: TimeAmount
    package let silenceLimit: TimeAmount
    private var lastHeard = NIODeadline.uptimeNanoseconds(0)
    private var task: RepeatedTask?

    package init(interval: Duration, timeout: Duration) {
        self.interval = TimeAmount(interval)
        self.silenceLimit = TimeAmount(interval + timeout)
    }

    /// Starts the ticks: `tick(handler, context)` every interval, on the loop.
    package mutating func start<Handler: AnyObject>(
        _ handler: Handler,
        context: ChannelHandlerContext,
        tick: @escaping (Handler, ChannelHandlerContext) -> Void
    ) {
        lastHeard = context.eventLoop.now
        // The tick is no more Sendable than the handler: all three stay bound to the loop they run on.
        let loopBound = NIOLoopBound((handler, context, tick), eventLoop: context.eventLoop)
        task = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            let (handler, context, tick) = loopBound.value
            tick(handler, context)
        }
    }

    /// The peer sent a frame.
    package mutating func heard(on loop: any EventLoop) { lastHeard = loop.now }

    /// Whether the peer has said nothing for longer than the silence limit.
    package func isSilent(on loop: any EventLoop) -> Bool { loop.now - lastHeard >= silenceLimit }

    package mutating func stop() {
        task?.cancel()
        task = nil
    }
}

extension TimeAmount {
    package init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

extension Duration {
    package init(_ amount: TimeAmount) {
        self = .nanoseconds(amount.nanoseconds)
    }
}
