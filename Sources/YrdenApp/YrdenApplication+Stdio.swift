import Logging
import ServiceLifecycle
import UnixSignals
import YrdenEngine
import YrdenFront

extension YrdenApplication {
    /// Serves the aggregate over stdin/stdout until stdin closes (the host went away) or a signal arrives,
    /// then shuts every upstream down as `run()` does.
    /// With a `profile`, its view only.
    package func runStdio(profile: String? = nil) async throws {
        try await withUpstreamConnector { connector, _ in try await runStdio(connector: connector, profile: profile) }
    }

    private func runStdio(connector: UpstreamConnector, profile: String?) async throws {
        let gateway = Gateway(
            config: config,
            logger: logger,
            connector: connector,
            toolPins: try ToolPinSetup(loaded: loaded, logger: logger).toolPins()
        )
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
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
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                cancellationSignals: [],
                logger: logger
            )
        )
        try await group.run()
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
