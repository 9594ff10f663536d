import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// Opens one WebSocket connection: TCP (and TLS for `wss://`), then the HTTP/1.1 upgrade asking for the `mcp`
/// subprotocol, all within the endpoint's connect timeout.
enum WebSocketUpgrade {
    /// What the server made of the upgrade request.
    enum Outcome: Sendable {
        case upgraded(any Channel)
        /// It answered with an HTTP response instead (401 for a missing token, 404 for a wrong path).
        case refused(status: Int, challenge: String?)
    }

    private enum PipelineResult: Sendable {
        case upgraded(any Channel)
        case refused(EventLoopFuture<HTTPResponseHead>)
    }

    /// The system's trust roots, loaded once for every `wss://` connection.
    private static let tlsContext = Result { () throws -> NIOSSLContext in
        try NIOSSLContext(configuration: .makeClientConfiguration())
    }

    static func open(
        _ endpoint: WebSocketEndpoint,
        target: WebSocketEndpoint.Target,
        authorization: String?,
        connection: WebSocketConnection,
        group: any EventLoopGroup
    ) async throws(UpstreamError) -> Outcome {
        var headers = HTTPHeaders()
        for (name, value) in endpoint.headers { headers.replaceOrAdd(name: name, value: value) }
        if let authorization { headers.replaceOrAdd(name: "Authorization", value: authorization) }
        headers.replaceOrAdd(name: "Host", value: target.hostHeader)
        headers.replaceOrAdd(name: "Sec-WebSocket-Protocol", value: "mcp")
        // NIO's upgrade handler writes an empty body part: without a length the encoder would send it chunked.
        headers.replaceOrAdd(name: "Content-Length", value: "0")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target.requestTarget, headers: headers)
        let tls: NIOSSLContext?
        do {
            tls = target.secure ? try endpoint.tls ?? tlsContext.get() : nil
        } catch {
            throw UpstreamError(.network, "TLS could not be set up for wss://: \(error)")
        }
        let timedOut = Atomic<Bool>(false)
        let timeout = TimeAmount(endpoint.connectTimeout)
        do {
            let result = try await ClientBootstrap(group: group)
                .connectTimeout(timeout)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connect(host: target.host, port: target.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        // The whole upgrade has the connect timeout; closing the channel fails what waits on it.
                        let timer = channel.eventLoop.scheduleTask(in: timeout) {
                            timedOut.store(true, ordering: .relaxed)
                            channel.close(promise: nil)
                        }
                        channel.closeFuture.whenComplete { _ in timer.cancel() }
                        if let tls {
                            let handler = try NIOSSLClientHandler(
                                context: tls,
                                serverHostname: isIPAddress(target.host) ? nil : target.host
                            )
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                        let upgrader = NIOTypedWebSocketClientUpgrader<PipelineResult>(
                            maxFrameSize: endpoint.maxMessageBytes
                        ) { channel, response in
                            channel.eventLoop.makeCompletedFuture {
                                timer.cancel()
                                let offered = response.headers.first(name: "Sec-WebSocket-Protocol")
                                if let offered, offered.lowercased() != "mcp" {
                                    throw UpstreamError(
                                        .protocol,
                                        "the server chose the WebSocket subprotocol \(offered.prefix(40)), not mcp"
                                    )
                                }
                                try channel.pipeline.syncOperations.addHandler(
                                    NIOWebSocketFrameAggregator(
                                        minNonFinalFragmentSize: 0,
                                        maxAccumulatedFrameCount: 4096,
                                        maxAccumulatedFrameSize: endpoint.maxMessageBytes
                                    )
                                )
                                try channel.pipeline.syncOperations.addHandler(
                                    WebSocketFrameHandler(
                                        connection: connection,
                                        pingInterval: endpoint.pingInterval,
                                        pongTimeout: endpoint.pongTimeout
                                    )
                                )
                                return PipelineResult.upgraded(channel)
                            }
                        }
                        let configuration = NIOTypedHTTPClientUpgradeConfiguration<PipelineResult>(
                            upgradeRequestHead: head,
                            upgraders: [upgrader],
                            notUpgradingCompletionHandler: { channel in
                                channel.eventLoop.makeCompletedFuture {
                                    timer.cancel()
                                    let reader = RefusedUpgradeReader(promise: channel.eventLoop.makePromise())
                                    try channel.pipeline.syncOperations.addHandler(reader)
                                    return PipelineResult.refused(reader.promise.futureResult)
                                }
                            }
                        )
                        return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                            configuration: .init(upgradeConfiguration: configuration)
                        )
                    }
                }
                .get()
            switch result {
            case .upgraded(let channel):
                return .upgraded(channel)
            case .refused(let response):
                let head = try await response.get()
                return .refused(status: Int(head.status.code), challenge: head.headers.first(name: "WWW-Authenticate"))
            }
        } catch let error as UpstreamError {
            throw error
        } catch {
            if timedOut.load(ordering: .relaxed) {
                throw UpstreamError(
                    .timeout,
                    "the WebSocket upgrade did not complete within \(endpoint.connectTimeout)"
                )
            }
            throw UpstreamError(.network, "the server cannot be reached over WebSocket: \(error)")
        }
    }

    private static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
    }
}

/// Reads the head of the response that refused the upgrade, then closes the connection.
private final class RefusedUpgradeReader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    let promise: EventLoopPromise<HTTPResponseHead>

    init(promise: EventLoopPromise<HTTPResponseHead>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            promise.succeed(head)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }
}
