import NIOCore
import NIOWebSocket
import Synchronization
import YrdenProtocol

/// The state behind one ``WebSocketChannel``: frames waiting for the upgrade, the open connection, and the
/// bytes written that the server has not taken yet.
///
/// Every frame goes out through the connection's event loop in the order `send` was called (the hop is made
/// under the lock, so two senders cannot overtake each other), and the bytes in flight are counted until the
/// write completes: a server that stops reading fills that budget and then refuses frames, never memory.
final class WebSocketConnection: Sendable {
    private enum Phase {
        case connecting(pending: [[UInt8]])
        case open(any Channel)
        case ended
    }

    private struct State {
        var phase = Phase.connecting(pending: [])
        var queuedBytes = 0
        var closing = false
    }

    let endpoint: WebSocketEndpoint
    let handler: UpstreamChannelHandler
    private let state = Mutex(State())
    private let closedOnce = OnceFlag()

    init(endpoint: WebSocketEndpoint, handler: UpstreamChannelHandler) {
        self.endpoint = endpoint
        self.handler = handler
    }

    var isOpen: Bool {
        state.withLock { state in
            if state.closing { return false }
            if case .ended = state.phase { return false }
            return true
        }
    }

    /// Queues one frame: written at once on an open connection, kept in order until the upgrade otherwise.
    func send(_ frame: [UInt8]) throws(UpstreamError) {
        let refusal: UpstreamError? = state.withLock { state in
            guard !state.closing else { return UpstreamError(.notConnected, "the connection to the server was closed") }
            guard state.queuedBytes + frame.count <= endpoint.maxQueuedBytes else {
                return UpstreamError(
                    .network,
                    "the server is not reading: \(state.queuedBytes) bytes wait to be sent to it, the limit is "
                        + "\(endpoint.maxQueuedBytes)"
                )
            }
            switch state.phase {
            case .connecting(var pending):
                state.phase = .connecting(pending: [])
                pending.append(frame)
                state.phase = .connecting(pending: pending)
            case .open(let channel):
                write(frame, on: channel)
            case .ended:
                return UpstreamError(.notConnected, "the connection to the server was closed")
            }
            state.queuedBytes += frame.count
            return nil
        }
        if let refusal { throw refusal }
    }

    /// The upgrade completed: the frames that waited go out first, in order.
    func opened(_ channel: any Channel) -> Bool {
        state.withLock { state in
            guard !state.closing, case .connecting(let pending) = state.phase else { return false }
            for frame in pending { write(frame, on: channel) }
            state.phase = .open(channel)
            return true
        }
    }

    /// Called under the lock: the hop keeps the order of sends.
    private func write(_ frame: [UInt8], on channel: any Channel) {
        let count = frame.count
        channel.eventLoop.execute {
            var buffer = channel.allocator.buffer(capacity: count)
            buffer.writeBytes(frame)
            let message = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: buffer)
            channel.writeAndFlush(message).whenComplete { _ in
                self.state.withLock { $0.queuedBytes -= count }
            }
        }
    }

    /// Hands one message, or each message of a batch, to the handler.
    func deliver(_ data: [UInt8]) {
        guard isOpen else { return }
        guard data.first(where: { !Self.isJSONWhitespace($0) }) == UInt8(ascii: "[") else {
            handler.frame(data)
            return
        }
        guard case .array(let messages) = try? JSONValue.parse(data) else {
            handler.log("ignored a message from the server that is not JSON")
            return
        }
        for message in messages { handler.frame(message.serialized()) }
    }

    /// Ends the connection: reports `closed` once, never while the gateway itself is closing it.
    func end(_ error: UpstreamError) {
        let (closing, channel) = state.withLock { state -> (Bool, (any Channel)?) in
            var channel: (any Channel)?
            if case .open(let open) = state.phase { channel = open }
            state.phase = .ended
            return (state.closing, channel)
        }
        // Reported before the close: closing on the event loop runs `channelInactive` at once, whose own
        // reason ("the server closed") must not take the place of this one.
        if !closing, closedOnce.set() { handler.closed(error) }
        channel?.close(promise: nil)
    }

    /// The gateway closes the connection: nothing more is sent or reported. Returns the channel to close, if open.
    func beginClosing() -> (any Channel)? {
        state.withLock { state in
            state.closing = true
            if case .open(let channel) = state.phase { return channel }
            return nil
        }
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
