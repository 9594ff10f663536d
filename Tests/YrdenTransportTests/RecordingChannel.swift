import Synchronization
import YrdenProtocol

@testable import YrdenTransport

/// A channel with no peer: every frame the client sends is announced on ``sent`` (parsed), and a test plays
/// the upstream through ``handler``.
final class RecordingChannel: UpstreamChannel {
    let handler: UpstreamChannelHandler
    let sent: AsyncStream<JSONRPCMessage>
    private let announce: AsyncStream<JSONRPCMessage>.Continuation

    init(handler: UpstreamChannelHandler) {
        self.handler = handler
        (sent, announce) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    func send(_ frame: [UInt8]) throws(UpstreamError) {
        guard let message = try? JSONRPCMessage(try JSONValue.parse(frame)) else {
            preconditionFailure("the client sent a frame that is not JSON-RPC")
        }
        announce.yield(message)
    }

    func close() async { announce.finish() }

    /// Delivers `message` as if the upstream had sent it.
    func receive(_ message: JSONRPCMessage) {
        handler.frame(message.serialized())
    }

    /// A client over a new recording channel.
    static func client(
        time: ManualTime,
        onShed: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) throws -> (UpstreamClient, RecordingChannel) {
        let box = Mutex<RecordingChannel?>(nil)
        let client = try UpstreamClient(
            open: { handler in
                let channel = RecordingChannel(handler: handler)
                box.withLock { $0 = channel }
                return channel
            },
            log: { _ in },
            time: time,
            onShed: onShed
        )
        return (client, box.withLock { $0! })
    }
}
