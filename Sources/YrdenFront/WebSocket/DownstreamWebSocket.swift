import NIOCore
import NIOWebSocket
import Synchronization
import YrdenEngine
import YrdenLineIO
import YrdenProtocol

/// The bounds of one downstream WebSocket.
struct WebSocketLimits: Sendable {
    /// A message (all its fragments) longer than this closes the connection with 1009: `/mcp`'s body limit.
    var maxMessageBytes: Int
    /// Bytes written to the client and not yet taken by its socket; past it the client is not reading and is
    /// cut off (1008), as an upstream WebSocket is: the same bound.
    var maxQueuedBytes = 64 << 20
    /// Messages read and not yet taken by the connection; past it the socket is not read until it catches up.
    var maxWaitingMessages = 64
    /// The client is pinged this often; one that sends nothing (no pong, no message) for `pingInterval +
    /// pongTimeout` is gone and its socket closed.
    var pingInterval: Duration = .seconds(15)
    var pongTimeout: Duration = .seconds(15)
}

/// One client's WebSocket, between its NIO channel (frames, on that channel's event loop) and the
/// ``MessageConnection`` that serves its messages (any task): messages in, in order and with back-pressure;
/// messages out, counted until the socket takes them.
///
/// Every frame goes out through the channel's event loop in the order `send` was called (the hop is made
/// under the lock), and its bytes are counted until the write completes: a client that stops reading fills
/// `maxQueuedBytes` and is cut off, never held in memory.
final class DownstreamWebSocket: Sendable {
    private struct State {
        var channel: (any Channel)?
        var queuedBytes = 0
        var waitingMessages = 0
        /// The channel's reads are off until the connection takes the messages waiting.
        var paused = false
        var closing = false
        var session: DownstreamSession?
    }

    let limits: WebSocketLimits
    /// The client's messages, each as a line is for stdio; ends when the socket does.
    let messages: AsyncStream<LineInput>
    private let feed: AsyncStream<LineInput>.Continuation
    private let state = Mutex(State())
    /// Told once why the gateway cut the client off (`outbox_full`, `message_too_large`), for the counter.
    private let cutOff: @Sendable (String) -> Void

    init(limits: WebSocketLimits, cutOff: @escaping @Sendable (String) -> Void = { _ in }) {
        self.limits = limits
        self.cutOff = cutOff
        (messages, feed) = AsyncStream.makeStream(of: LineInput.self)
    }

    /// The channel is open: sends go to it from now on.
    func attach(_ channel: any Channel) {
        state.withLock { $0.channel = channel }
    }

    /// The session the client opened over the socket, kept in use while the client answers pings.
    func opened(_ session: DownstreamSession) {
        state.withLock { $0.session = session }
    }

    func touchSession() {
        state.withLock { $0.session }?.touch()
    }

    // MARK: In (the channel's event loop)

    /// A whole message from the client. Returns true when the channel must stop reading: that many wait.
    func received(_ bytes: [UInt8]) -> Bool {
        let pause = state.withLock { state in
            state.waitingMessages += 1
            guard !state.paused, state.waitingMessages >= limits.maxWaitingMessages else { return false }
            state.paused = true
            return true
        }
        feed.yield(.line(bytes))
        return pause
    }

    /// The connection took a message: reading resumes once half of the bound is left.
    func taken() {
        let resume = state.withLock { state -> (any Channel)? in
            state.waitingMessages -= 1
            guard state.paused, state.waitingMessages <= limits.maxWaitingMessages / 2 else { return nil }
            state.paused = false
            return state.channel
        }
        if let resume {
            resume.setOption(ChannelOptions.autoRead, value: true).whenSuccess { resume.read() }
        }
    }

    /// The socket closed: the connection ends once it has taken what came.
    func ended() {
        state.withLock { $0.closing = true }
        feed.finish()
    }

    // MARK: Out (any task)

    /// Sends one message as a text frame, or cuts off a client that let `maxQueuedBytes` wait (one message of
    /// any size is taken while nothing waits, so a large result reaches a client that reads).
    func send(_ message: JSONRPCMessage) {
        let bytes = message.serialized()
        let refused = state.withLock { state -> Bool in
            guard !state.closing, let channel = state.channel else { return false }
            guard state.queuedBytes == 0 || state.queuedBytes + bytes.count <= limits.maxQueuedBytes else {
                return true
            }
            state.queuedBytes += bytes.count
            let count = bytes.count
            channel.eventLoop.execute {
                var buffer = channel.allocator.buffer(capacity: count)
                buffer.writeBytes(bytes)
                channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: buffer)).whenComplete { _ in
                    self.state.withLock { $0.queuedBytes -= count }
                }
            }
            return false
        }
        if refused {
            cutOff("outbox_full")
            close(.policyViolation, "the client does not read: \(limits.maxQueuedBytes) bytes wait for it")
        }
    }

    /// Says goodbye with `code` and closes the socket: at once if the client answers the close, else within
    /// two seconds (a client that does not read never takes the close frame). Idempotent.
    func close(_ code: WebSocketErrorCode, _ reason: String) {
        let channel = state.withLock { state -> (any Channel)? in
            guard !state.closing else { return nil }
            state.closing = true
            return state.channel
        }
        guard let channel else { return }
        channel.eventLoop.execute {
            var data = channel.allocator.buffer(capacity: 2 + reason.utf8.count)
            data.write(webSocketErrorCode: code)
            data.writeString(String(reason.prefix(120)))
            channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data), promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
    }

    /// The limit was passed: counted, then closed with 1009.
    func refuseOversized() {
        cutOff("message_too_large")
        close(.messageTooLarge, "a message is over the limit of \(limits.maxMessageBytes) bytes")
    }

    /// Whether the gateway has begun closing (then a close frame from the client only finishes it).
    var isClosing: Bool { state.withLock { $0.closing } }
}
