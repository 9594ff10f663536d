import Logging
import ServiceLifecycle
import UnixSignals
import YrdenEngine
import YrdenFront

extension YrdenApplication {
    /// Serves the aggregate over stdin/stdout until stdin closes (the host went away) or a signal arrives,
    /// then shuts every upstream down as `run()` does.
    package func runStdio() async throws {
        try await withUpstreamConnector { connector, _ in try await runStdio(connector: connector) }
    }

    private func runStdio(connector: UpstreamConnector) async throws {
        let gateway = Gateway(config: config, logger: logger, connector: connector)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: EngineService(gateway: gateway)),
                    .init(
                        service: StdioService(endpoint: StdioEndpoint(gateway: gateway)),
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
