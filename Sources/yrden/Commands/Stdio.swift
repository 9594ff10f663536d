import ArgumentParser
import Logging
import YrdenApp
import YrdenConfig

struct Stdio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the same aggregate over stdio, for hosts that can only launch a command.",
        discussion: "stdout carries MCP messages only; logs go to stderr."
    )

    @Option(name: .long, help: "Config file (JSON, a superset of the {\"mcpServers\": …} format).")
    var config: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .warning

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let loaded: GatewayConfig
        do {
            loaded = try ConfigSource.resolve(path: config, environment: ConfigEnvironment.current())
        } catch {
            ConfigSource.report(error)
            throw ExitCode(2)
        }
        do {
            try await YrdenApplication(config: loaded, logger: Logger(label: "yrden")).runStdio()
        } catch {
            Logger(label: "yrden").critical("yrden failed: \(error)")
            throw ExitCode(1)
        }
    }
}
