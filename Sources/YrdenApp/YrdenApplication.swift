import AsyncHTTPClient
import Logging
import NIOCore
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
        try await withUpstreamConnector { connector in try await run(connector: connector) }
    }

    /// Runs `body` with the process's one upstream HTTP client, shut down once `body` returns (after the
    /// service group has stopped every upstream).
    func withUpstreamConnector<Result>(_ body: (UpstreamConnector) async throws -> Result) async throws -> Result {
        try await HTTPClient.withHTTPClient(configuration: Self.upstreamHTTPConfiguration) { httpClient in
            try await body(UpstreamConnector(httpClient: httpClient))
        }
    }

    /// The one HTTP client for upstream traffic. Redirects are refused (a bearer token must never follow one
    /// to another host), connecting is bounded, and there is no read timeout: SSE streams stay open, and each
    /// request carries its own deadline instead. Streams hold a connection each, hence the larger pool.
    package static let upstreamHTTPConfiguration = HTTPClient.Configuration(
        redirectConfiguration: .disallow,
        timeout: .init(connect: .seconds(10)),
        connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
    )

    private func run(connector: UpstreamConnector) async throws {
        let gateway = Gateway(config: config, logger: logger, connector: connector)
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
