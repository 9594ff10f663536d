import Logging
import NIOCore
import NIOPosix
import NIOWebSocket
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MCP over a WebSocket (`GET /ws`, `/mcp/{profile}/ws`, `/servers/{id}/ws`), subprotocol `mcp`: one
/// connection, one client, each text message one JSON-RPC message, served by a ``MessageConnection`` as a
/// stdio client's lines are (a session opened by `initialize`; 2026-07-28 requests stand alone), and the
/// session ends, with the calls it still runs, when the socket closes.
///
/// The router admits the request first, under `/mcp`'s rules (Host, Origin, tokens), so a refused upgrade is
/// answered as `/mcp` answers. libmicrohttpd sends the `101` and hands the socket over; the frames are
/// swift-nio's (`NIOWebSocket`), on the HTTP client's event loops, never on the gateway's own loop.
struct WebSocketEndpoint: Sendable {
    let gateway: Gateway
    let sockets: OpenWebSockets
    let loops: any EventLoopGroup
    let limits: WebSocketLimits
    let logger: Logger
    /// Counts the clients cut off, by reason.
    let cutOff: @Sendable (String) -> Void

    /// The answer to an admitted upgrade request: `101` and the socket served, or why not.
    func open(_ request: HTTPRequest, scope: CatalogScope, caller: Caller) -> HTTPResponse {
        let handshake: WebSocketHandshake
        switch WebSocketHandshake.read(request) {
        case .failure(let refusal):
            var response = FrontResponses.rpcError(refusal.status, .invalidRequest(refusal.reason))
            for (name, value) in refusal.headers { response.headers.add(name: name, value: value) }
            return response
        case .success(let read): handshake = read
        }
        let client = request.clientKey(for: caller)
        let lease: OpenWebSockets.Lease
        switch sockets.lease(client) {
        case .failure(let full): return FrontResponses.rpcError(503, JSONRPCError(code: -32000, message: full.reason))
        case .success(let taken): lease = taken
        }
        let endpoint = self
        let traceHeaders = TraceHeaders(request, gateway: gateway)
        return HTTPResponse(
            status: 101,
            headers: handshake.headers,
            body: .upgrade { socket in
                // Held until the socket is served; released with the closure even if the socket never came.
                withExtendedLifetime(lease) {}
                await endpoint.serve(socket, scope: scope, client: client, caller: caller, traceHeaders: traceHeaders)
            }
        )
    }

    /// Serves one upgraded socket until it closes, the client goes silent, or the gateway stops (1001). Its
    /// messages without trace context in `_meta` take the upgrade request's `traceHeaders`.
    private func serve(
        _ upgraded: UpgradedSocket,
        scope: CatalogScope,
        client: ClientKey?,
        caller: Caller,
        traceHeaders: TraceHeaders?
    ) async {
        // NIO closes the descriptor it is given; libmicrohttpd closes its own when the socket is handed back.
        let descriptor = dup(upgraded.descriptor)
        guard descriptor >= 0 else { return }
        let socket = DownstreamWebSocket(limits: limits, cutOff: cutOff)
        let channel: any Channel
        do {
            channel = try await pipeline(socket, leftover: upgraded.leftover).withConnectedSocket(descriptor).get()
        } catch {
            logger.warning("a WebSocket could not be served", metadata: ["error": "\(error)"])
            return
        }
        socket.attach(channel)
        var opened = MessageConnection(gateway: gateway, scope: scope, client: client, caller: caller) {
            socket.send($0)
        }
        opened.sessionOpened = { socket.opened($0) }
        let connection = opened
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await connection.serve(
                        socket.messages.map { message in
                            socket.taken()
                            return TracedLine(input: message, traceHeaders: traceHeaders)
                        }
                    )
                }
                group.addTask { try? await channel.closeFuture.get() }
                // The socket closed (or the messages ended with it): the session's calls still running end too.
                await group.next()
                group.cancelAll()
            }
        } onCancel: {
            socket.close(.goingAway, "the gateway is shutting down")
        }
        socket.close(.normalClosure, "")
        try? await channel.closeFuture.get()
    }

    /// The pipeline over the socket: frames decoded within the message limit, fragments joined, the leftover
    /// bytes first.
    private func pipeline(_ socket: DownstreamWebSocket, leftover: [UInt8]) -> ClientBootstrap {
        let maxFrame = min(limits.maxMessageBytes, Int(UInt32.max))
        return ClientBootstrap(group: loops)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handlers = channel.pipeline.syncOperations
                    if !leftover.isEmpty { try handlers.addHandler(LeftoverBytes(leftover)) }
                    try handlers.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: maxFrame)))
                    try handlers.addHandler(WebSocketFrameEncoder())
                    try handlers.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0,
                            maxAccumulatedFrameCount: 4096,
                            maxAccumulatedFrameSize: maxFrame
                        )
                    )
                    try handlers.addHandler(DownstreamFrameHandler(socket: socket))
                }
            }
    }
}
