import AsyncHTTPClient
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import UnixSignals
import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenFront
import YrdenHTTPServer
import YrdenResourceAuth
import YrdenTransport

/// The composition root: a validated config becomes a running gateway, as one `ServiceGroup`.
///
/// Services stop in reverse order on SIGTERM/SIGINT: the HTTP front first (new requests get 503, let calls in
/// flight finish), then the engine (end sessions, shut every upstream down and reap it).
package struct YrdenApplication: Sendable {
    package let loaded: LoadedConfig
    package let logger: Logger
    /// Where the metrics the process records are collected, served at `/metrics`.
    package let metrics: PrometheusCollectorRegistry
    package var config: GatewayConfig { loaded.config }
    /// How long a graceful shutdown may take before what is left is cancelled.
    package static let shutdownBound: Duration = .seconds(20)

    package init(loaded: LoadedConfig, logger: Logger, metrics: PrometheusCollectorRegistry) {
        self.loaded = loaded
        self.logger = logger
        self.metrics = metrics
    }

    /// Binds the listener (so a port clash fails fast, before anything is started) and serves until a
    /// signal or cancellation; returns once everything has stopped.
    package func run() async throws {
        guard let url = config.store.postgres else {
            return try await withUpstreamConnector { connector, credentials in
                try await run(connector: connector, credentials: credentials, shared: nil)
            }
        }
        try await SharedStateSetup(loaded: loaded, logger: logger).withSharedState(url: url) { shared, running in
            let replica = YrdenApplication(loaded: running, logger: logger, metrics: metrics)
            try await replica.withUpstreamConnector(shared: shared) { connector, credentials in
                try await replica.run(connector: connector, credentials: credentials, shared: shared)
            }
        }
    }

    /// Runs `body` with the process's one upstream HTTP client, shut down once `body` returns (after the
    /// service group has stopped every upstream), and the OAuth sign-ins that share it.
    func withUpstreamConnector<Result>(
        shared: SharedState? = nil,
        _ body: (UpstreamConnector, OAuthCredentials) async throws -> Result
    ) async throws -> Result {
        // The allocator's process-wide tuning, and the trim the engine asks for when large work freed memory.
        GlibcHeap.install()
        let trust: UpstreamTrust
        do { trust = try UpstreamTrust(environment: loaded.environment) } catch {
            throw StartupRefusal(message: error.message)
        }
        return try await HTTPClient.withHTTPClient(configuration: Self.upstreamHTTPConfiguration(trust)) { httpClient in
            let credentials = try OAuthSetup(loaded: loaded, logger: logger)
                .credentials(httpClient: httpClient, shared: shared)
            var connector = UpstreamConnector(
                channels: LiveChannels(httpClient: httpClient, trust: trust),
                credentials: credentials,
                withheldEnvironment: WithheldEnvironment(
                    loaded.document.secretVariables,
                    always: shared?.ownSecretVariables ?? []
                )
            )
            connector.userSessionLimits = .from(environment: loaded.environment)
            return try await body(connector, credentials)
        }
    }

    /// The one HTTP client for upstream traffic. Redirects are refused (a bearer token must never follow one
    /// to another host), connecting is bounded, and there is no read timeout: SSE streams stay open, and each
    /// request carries its own deadline instead. A refused connection fails at once instead of being retried
    /// for the whole connect timeout: the transport retries what is safe itself, with backoff, and a server
    /// that went away is noticed in a second. Streams hold a connection each, hence the larger pool. TLS
    /// verifies against `trust`'s roots. The client's own tracing is off: with no tracer bootstrapped it still
    /// made a no-op span and its attributes for every request (3 % of a gateway's CPU in front of an HTTP
    /// upstream); the gateway's tracing makes its own upstream spans.
    package static func upstreamHTTPConfiguration(_ trust: UpstreamTrust) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: trust.tlsConfiguration,
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10)),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.tracing.tracer = nil
        return configuration
    }

    private func run(connector: UpstreamConnector, credentials: OAuthCredentials, shared: SharedState?) async throws {
        let telemetry = TelemetrySetup(
            config.telemetry,
            networkTransport: "tcp",
            client: connector.httpClient,
            metrics: metrics,
            logger: logger
        )
        let gateway = Gateway(
            config: config,
            logger: logger,
            connector: connector,
            toolPins: try ToolPinSetup(loaded: loaded, logger: logger).toolPins(shared: shared),
            requestStateKey: shared?.requestStateKey,
            replica: shared == nil ? nil : config.gateway.replicaAddress,
            audit: try AuditSetup.trail(config.audit),
            tracer: telemetry.tracer
        )
        // What the last calls and changes recorded is written before the process ends.
        defer { gateway.flushAudit() }
        if gateway.isTracing { credentials.traceRefreshes { gateway.startRefreshSpan(server: $0) } }
        let store =
            shared.map {
                ConfigStore(
                    shared: $0.config,
                    snapshot: $0.snapshot,
                    environment: loaded.environment,
                    gateway: gateway,
                    logger: logger
                )
            }
            ?? ConfigStore(
                document: loaded.document,
                path: loaded.path,
                environment: loaded.environment,
                gateway: gateway,
                logger: logger
            )
        // The apps sandbox binds first, so the console can name its origin; it learns the console's port in turn
        // before it serves anything.
        let consolePort = PortNumber()
        let sandbox = try appsSandboxListener(consolePort: consolePort)
        let router = FrontRouter(
            gateway: gateway,
            store: store,
            signIns: SignInControl(gateway: gateway, credentials: credentials),
            settings: config.gateway,
            metrics: metrics,
            appsSandboxPort: sandbox?.port,
            replicas: shared == nil ? nil : connector.httpClient.map { HTTPReplicaHandOff(client: $0, logger: logger) },
            issuerHTTP: connector.httpClient.map { IssuerHTTP.live(client: $0) },
            dataDirectory: loaded.dataDirectory,
            webSocketLoops: connector.httpClient?.eventLoopGroup,
            logger: logger
        )
        // Every connection is a descriptor: the default soft limit would let one client's slow connections fill it.
        let openFiles = OpenFileLimit.raiseToHardLimit()
        ChildOpenFileLimit.keep(openFiles.before)
        logger.debug("open-file limit", metadata: ["before": "\(openFiles.before)", "now": "\(openFiles.after)"])
        let eventLoop = try SharedEventLoop.process()
        let lagProbe = EventLoopLag(registry: metrics).measure(eventLoop.loop)
        defer { eventLoop.loop.stopMeasuringLag(lagProbe) }
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(
                host: config.gateway.listenHost,
                port: config.gateway.listenPort,
                maxBodyBytes: config.gateway.maxBodyBytes,
                eventLoop: eventLoop,
                trustedProxies: config.gateway.trustedProxies.compactMap(PeerNetwork.init(parsing:))
            ),
            logger: logger,
            handler: { await router.handle($0) }
        )
        consolePort.set(server.port)
        logger.info(
            "yrden listening",
            metadata: [
                "url": "http://\(Self.hostForURL(config.gateway.listenHost)):\(server.port)/mcp",
                "servers": "\(config.servers.count)",
                "console":
                    "\(config.gateway.console ? "http://\(Self.hostForURL(config.gateway.listenHost)):\(server.port)/" : "off")",
            ]
        )
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: EngineService(gateway: gateway)),
            // With a store there is no file to follow: other replicas' changes come through the store's feed.
            .init(
                service: ConfigReloadService(store: store, logger: logger),
                successTerminationBehavior: shared == nil ? .cancelGroup : .ignore
            ),
            .init(service: server),
        ]
        if let sandbox {
            services.append(.init(service: sandbox))
        }
        if let shared {
            shared.applyPins(to: gateway, logger: logger)
            services.append(.init(service: SharedStateFeed(shared: shared, store: store)))
        }
        if let callback = config.gateway.oauthCallback {
            // Only the OAuth callback is served there: the MCP endpoint and the admin API stay on the main listener.
            let listener = try HTTPServer(
                configuration: HTTPServerConfiguration(
                    host: callback.host,
                    port: callback.port,
                    maxBodyBytes: 64 << 10,
                    eventLoop: try SharedEventLoop.process()
                ),
                logger: logger,
                handler: { await router.handleOAuthCallbackOnly($0) }
            )
            services.append(.init(service: listener))
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: telemetry.services(before: services),
                gracefulShutdownSignals: [.sigterm, .sigint],
                cancellationSignals: [],
                logger: logger
            )
        )
        try await group.run()
        logger.info("yrden stopped")
    }

    /// The MCP Apps sandbox's listener, on `appsListen`, or else the next port, or else any free one (the
    /// console reads its origin from the gateway, so only a placed listener must get its own port).
    private func appsSandboxListener(consolePort: PortNumber) throws -> HTTPServer? {
        guard let address = config.gateway.appsSandbox else { return nil }
        func listen(on port: Int) throws -> HTTPServer {
            try HTTPServer(
                // One static file to a browser now and then: no thread of its own.
                configuration: HTTPServerConfiguration(
                    host: address.host,
                    port: port,
                    maxBodyBytes: 16 << 10,
                    eventLoop: try SharedEventLoop.process()
                ),
                logger: logger,
                handler: FrontRouter.appsSandboxHandler(settings: config.gateway, consolePort: consolePort.get)
            )
        }
        guard config.gateway.appsListen == nil, address.port != 0 else { return try listen(on: address.port) }
        do {
            return try listen(on: address.port)
        } catch {
            logger.notice(
                "the apps sandbox's usual port is taken; it listens on a free one",
                metadata: ["port": "\(address.port)"]
            )
            return try listen(on: 0)
        }
    }

    private static func hostForURL(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}

/// The engine as a service: upstreams run until graceful shutdown, then stop properly.
struct EngineService: Service {
    let gateway: Gateway

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await gateway.run()
        }
    }
}
