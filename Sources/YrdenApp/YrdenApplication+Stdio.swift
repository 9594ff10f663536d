import Logging
import ServiceLifecycle
import UnixSignals
import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenFront
import YrdenProtocol

extension YrdenApplication {
    /// Serves the aggregate over stdin/stdout until stdin closes (the host went away) or a signal arrives,
    /// then shuts every upstream down as `run()` does.
    /// With a `profile`, its view only.
    package func runStdio(profile: String? = nil) async throws {
        try await withUpstreamConnector { connector, credentials in
            try await runStdio(connector: connector, credentials: credentials, profile: profile)
        }
    }

    private func runStdio(connector: UpstreamConnector, credentials: OAuthCredentials, profile: String?) async throws {
        let telemetry = TelemetrySetup(
            config.telemetry,
            networkTransport: "pipe",
            client: connector.httpClient,
            metrics: metrics,
            logger: logger
        )
        let gateway = Gateway(
            config: config,
            logger: logger,
            connector: connector,
            toolPins: try ToolPinSetup(loaded: loaded, logger: logger).toolPins(),
            startup: startupBound,
            audit: try AuditSetup.trail(config.audit),
            tracer: telemetry.tracer
        )
        defer { gateway.flushAudit() }
        if gateway.isTracing { credentials.traceRefreshes { gateway.startRefreshSpan(server: $0) } }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: telemetry.services(before: [
                    .init(service: EngineService(gateway: gateway)),
                    .init(
                        service: StdioService(
                            endpoint: StdioEndpoint(
                                gateway: gateway,
                                scope: profile.map(CatalogScope.profile) ?? .gateway
                            )
                        ),
                        successTerminationBehavior: .gracefullyShutdownGroup
                    ),
                ]),
                gracefulShutdownSignals: [.sigterm, .sigint],
                cancellationSignals: [],
                logger: logger
            )
        )
        try await group.run()
    }
}

extension YrdenApplication {
    /// A stdio host lists once, right away, and keeps that list: unless the config sets `startupWait`, its first
    /// requests wait for each server's first attempt, bounded by that server's own connect timeout.
    var startupBound: StartupBound {
        loaded.document.root["gateway"]?["startupWait"] == nil ? .eachServersConnectTimeout : .startupWait
    }
}

/// The stdio endpoint as a service: when stdin ends, the whole group shuts down.
struct StdioService: Service {
    let endpoint: StdioEndpoint

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await endpoint.run()
        }
    }
}
