import ArgumentParser
import CoreMetrics
import Logging
import Prometheus
import YrdenApp
import YrdenConfig

/// What every command that runs the gateway takes: the config and how loudly to log.
struct GatewayOptions: ParsableArguments {
    @Option(name: .long, help: "Config file (JSON, a superset of the {\"mcpServers\": …} format).")
    var config: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level?

    @Option(name: .long, help: "Log format: text (for people) or json (one object per line, for containers).")
    var logFormat: LogFormat = .text

    @Option(name: .long, help: "Directory for OAuth tokens and other state (overrides gateway.dataDir).")
    var dataDir: String?

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    /// Bootstraps logging to stderr (stdout may carry MCP), loads the config, and runs `body` with the
    /// application. An invalid config exits 2, a runtime failure exits 1.
    func run(
        defaultLogLevel: Logger.Level,
        overrides: [String: String] = [:],
        _ body: (YrdenApplication) async throws -> Void
    ) async throws {
        let level = logLevel ?? defaultLogLevel
        let format = logFormat
        // Lines are queued and written by a thread of their own: a stderr nobody reads must not stop the loop.
        let stderr = LogLineQueue(fd: 2)
        defer { stderr.flush() }
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var handler = StreamLogHandler(label: label, stream: QueuedLogStream(queue: stderr))
                handler.logLevel = level
                return handler
            case .json:
                var handler = JSONLogHandler(label: label, output: stderr)
                handler.logLevel = level
                return handler
            }
        }
        let logger = Logger(label: "yrden")
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))
        let loaded: LoadedConfig
        do {
            var overrides = overrides
            if let dataDir { overrides["YRDEN_DATA_DIR"] = dataDir }
            let environment = ConfigEnvironment.current().merging(overrides) { _, override in override }
            loaded = try ConfigSource.resolve(path: config, environment: environment)
        } catch {
            ConfigSource.report(error)
            throw ExitCode(2)
        }
        ConfigSource.logNotices(of: loaded, logger: logger)
        do {
            try await body(YrdenApplication(loaded: loaded, logger: logger, metrics: metrics))
        } catch let exit as ExitCode {
            throw exit
        } catch let refusal as StartupRefusal {
            logger.critical("yrden cannot start: \(refusal)")
            throw ExitCode(2)
        } catch {
            logger.critical("yrden failed: \(error)")
            throw ExitCode(1)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
