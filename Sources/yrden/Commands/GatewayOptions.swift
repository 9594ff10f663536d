import ArgumentParser
import Logging
import YrdenApp
import YrdenConfig

/// What every command that runs the gateway takes: the config and how loudly to log.
struct GatewayOptions: ParsableArguments {
    @Option(name: .long, help: "Config file (JSON, a superset of the {\"mcpServers\": …} format).")
    var config: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level?

    /// Bootstraps logging to stderr (stdout may carry MCP), loads the config, and runs `body` with the
    /// application. An invalid config exits 2, a runtime failure exits 1.
    func run(
        defaultLogLevel: Logger.Level,
        overrides: [String: String] = [:],
        _ body: (YrdenApplication) async throws -> Void
    ) async throws {
        let level = logLevel ?? defaultLogLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "yrden")
        let loaded: GatewayConfig
        do {
            let environment = ConfigEnvironment.current().merging(overrides) { _, override in override }
            loaded = try ConfigSource.resolve(path: config, environment: environment)
        } catch {
            ConfigSource.report(error)
            throw ExitCode(2)
        }
        do {
            try await body(YrdenApplication(config: loaded, logger: logger))
        } catch {
            logger.critical("yrden failed: \(error)")
            throw ExitCode(1)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
