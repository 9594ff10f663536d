import Logging
import ServiceLifecycle
import UnixSignals
import YrdenConfig
import YrdenEngine
import YrdenFront
import YrdenHTTPServer

/// The composition root: a validated config becomes a running gateway, as one `ServiceGroup`.
///
/// Services stop in reverse order on SIGTERM/SIGINT: the HTTP front first (stop accepting, let calls in
/// flight finish), then the engine (end sessions, shut every upstream down and reap it).
package struct YrdenApplication: Sendable {
    package let config: GatewayConfig
    package let logger: Logger
    /// How long a graceful shutdown may take before what is left is cancelled.
    package static let shutdownBound: Duration = .seconds(20)

    package init(config: GatewayConfig, logger: Logger) {
        self.config = config
        self.logger = logger
    }

    /// Binds the listener (so a port clash fails fast, before anything is started) and serves until a
    /// signal or cancellation; returns once everything has stopped.
    package func run() async throws {
        let gateway = Gateway(config: config, logger: logger)
        let router = FrontRouter(gateway: gateway, allowedOrigins: config.gateway.allowedOrigins, logger: logger)
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(
                host: config.gateway.listenHost,
                port: config.gateway.listenPort,
                maxBodyBytes: config.gateway.maxBodyBytes
            ),
            logger: logger,
            handler: { await router.handle($0) }
        )
        logger.info(
            "yrden listening",
            metadata: [
                "url": "http://\(Self.hostForURL(config.gateway.listenHost)):\(server.port)/mcp",
                "servers": "\(config.servers.count)",
            ]
        )
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: EngineService(gateway: gateway)),
                    .init(service: server),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                cancellationSignals: [],
                logger: logger
            )
        )
        try await group.run()
        logger.info("yrden stopped")
    }

    private static func hostForURL(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}

/// The engine as a service: upstreams run until graceful shutdown, then stop properly.
struct EngineService: Service {
    let gateway: Gateway

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            await gateway.run()
        }
    }
}
