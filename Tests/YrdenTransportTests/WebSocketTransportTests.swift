import NIOCore
import NIOEmbedded
import NIOWebSocket
import Synchronization
import Testing

@testable import YrdenTransport

/// The WebSocket channel's pure parts: where the URL says to connect, what a pipeline error tells an operator,
/// and the bound on frames that wait to be sent.
@Suite struct WebSocketTransportTests {
    private func endpoint(_ url: String, maxQueuedBytes: Int = 64 << 20) -> WebSocketEndpoint {
        WebSocketEndpoint(url: url, headers: [:], connectTimeout: .seconds(1), maxQueuedBytes: maxQueuedBytes)
    }

    @Test func aURLGivesHostPortTargetAndHostHeader() throws {
        let plain = try endpoint("ws://127.0.0.1:9000/ws?a=b%20c").target()
        #expect(
            plain
                == .init(
                    secure: false,
                    host: "127.0.0.1",
                    port: 9000,
                    requestTarget: "/ws?a=b%20c",
                    hostHeader: "127.0.0.1:9000"
                )
        )
        let secure = try endpoint("wss://mcp.example.com").target()
        #expect(
            secure
                == .init(
                    secure: true,
                    host: "mcp.example.com",
                    port: 443,
                    requestTarget: "/",
                    hostHeader: "mcp.example.com"
                )
        )
        let v6 = try endpoint("ws://[::1]:81/x").target()
        #expect(v6.host == "::1" && v6.hostHeader == "[::1]:81")
    }

    @Test func anHTTPURLIsNotAWebSocketOne() {
        #expect(throws: UpstreamError.self) { try endpoint("http://127.0.0.1/ws").target() }
    }

    @Test func aMessageOverTheLimitIsNamedAsSuch() {
        let tooLarge = WebSocketFrameHandler.reason(
            NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge,
            limit: 10
        )
        #expect(tooLarge.kind == .protocol && tooLarge.message.contains("over the limit of 10 bytes"))
        let frame = WebSocketFrameHandler.reason(NIOWebSocketError.invalidFrameLength, limit: 10)
        #expect(frame.message.contains("over the limit of 10 bytes"))
    }

    @Test func framesPastTheQueueBoundAreRefusedNotQueued() throws {
        let closed = Mutex<[UpstreamError]>([])
        let handler = UpstreamChannelHandler(
            frame: { _ in },
            closed: { error in closed.withLock { $0.append(error) } },
            log: { _ in }
        )
        let connection = WebSocketConnection(
            endpoint: endpoint("ws://127.0.0.1:1/", maxQueuedBytes: 100),
            handler: handler
        )
        try connection.send(Array(repeating: 0x20, count: 60))
        #expect(throws: UpstreamError.self) { try connection.send(Array(repeating: 0x20, count: 60)) }
        try connection.send(Array(repeating: 0x20, count: 40))
        connection.end(UpstreamError(.network, "gone"))
        connection.end(UpstreamError(.network, "gone again"))
        #expect(closed.withLock { $0.map(\.message) } == ["gone"])
        #expect(throws: UpstreamError.self) { try connection.send([0x20]) }
    }

    /// An upgraded connection's pipeline on an embedded loop whose clock the test moves; what the connection
    /// reported as its end is collected.
    private func pipeline(maxMessageBytes: Int = 64 << 20) throws -> (EmbeddedChannel, Ends) {
        let closed = Ends()
        let handler = UpstreamChannelHandler(
            frame: { _ in },
            closed: { error in closed.errors.withLock { $0.append(error) } },
            log: { _ in }
        )
        var settings = endpoint("ws://127.0.0.1:1/")
        settings.maxMessageBytes = maxMessageBytes
        let connection = WebSocketConnection(endpoint: settings, handler: handler)
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            NIOWebSocketFrameAggregator(
                minNonFinalFragmentSize: 0,
                maxAccumulatedFrameCount: 4096,
                maxAccumulatedFrameSize: maxMessageBytes
            )
        )
        try channel.pipeline.syncOperations.addHandler(
            WebSocketFrameHandler(connection: connection, pingInterval: .seconds(15), pongTimeout: .seconds(10))
        )
        return (channel, closed)
    }

    private func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: opcode, data: ByteBuffer(string: text))
    }

    @Test func aServerThatAnswersPingsStaysAndASilentOneIsGivenUp() throws {
        let (channel, closed) = try pipeline()
        let loop = channel.embeddedEventLoop
        loop.advanceTime(by: .seconds(15))
        let ping = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(ping.opcode == .ping)
        try channel.writeInbound(frame(.pong, ""))
        loop.advanceTime(by: .seconds(15))
        #expect(try channel.readOutbound(as: WebSocketFrame.self)?.opcode == .ping)
        #expect(closed.errors.withLock { $0.isEmpty })
        // Nothing back for 25 s (15 s of interval, 10 s for the pong): the next tick gives the connection up.
        loop.advanceTime(by: .seconds(15))
        #expect(closed.errors.withLock { $0.map(\.kind) } == [.timeout])
        #expect(closed.errors.withLock { $0.first?.message.contains("no WebSocket ping") } == true)
    }

    @Test func theServersPingIsAnsweredWithItsData() throws {
        let (channel, _) = try pipeline()
        try channel.writeInbound(frame(.ping, "hi"))
        let pong = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(pong.opcode == .pong && String(buffer: pong.data) == "hi")
    }

    @Test func aFragmentedMessageOverTheLimitEndsTheConnectionNamingTheLimit() throws {
        let (channel, closed) = try pipeline(maxMessageBytes: 10)
        try channel.writeInbound(frame(.text, "12345678", fin: false))
        try channel.writeInbound(frame(.continuation, "12345678"))
        #expect(!channel.isActive)
        #expect(
            closed.errors.withLock { $0.map(\.message) } == [
                "the server sent a WebSocket message over the limit of 10 bytes"
            ]
        )
    }
}

/// What a connection reported as its end, in order.
private final class Ends: Sendable {
    let errors = Mutex<[UpstreamError]>([])
}
