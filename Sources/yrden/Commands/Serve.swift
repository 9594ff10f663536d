import ArgumentParser
import Logging
import YrdenApp
import YrdenConfig

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the gateway.",
        discussion: """
            Without --config it uses ./yrden.json if present, else an embedded default that fronts the \
            built-in demo server, so a first run works offline.
            """
    )

    @Option(name: .long, help: "Config file (JSON, a superset of the {\"mcpServers\": …} format).")
    var config: String?

    @Option(name: .long, help: "Listen address HOST:PORT (overrides gateway.listen).")
    var listen: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let logger = Logger(label: "yrden")
        var environment = ConfigEnvironment.current()
        if let listen { environment["YRDEN_LISTEN"] = listen }
        let loaded: GatewayConfig
        do {
            loaded = try ConfigSource.resolve(path: config, environment: environment)
        } catch {
            ConfigSource.report(error)
            throw ExitCode(2)
        }
        do {
            try await YrdenApplication(config: loaded, logger: logger).run()
        } catch {
            logger.critical("yrden failed: \(error)")
            throw ExitCode(1)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
