import ArgumentParser
import Logging
import YrdenApp

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the gateway.",
        discussion: """
            Without --config it uses ./yrden.json if present, else an embedded default that fronts the \
            built-in demo server, so a first run works offline.
            """
    )

    @OptionGroup var options: GatewayOptions

    @Option(name: .long, help: "Listen address HOST:PORT (overrides gateway.listen).")
    var listen: String?

    func run() async throws {
        let overrides = listen.map { ["YRDEN_LISTEN": $0] } ?? [:]
        try await options.run(defaultLogLevel: .info, overrides: overrides) { try await $0.run() }
    }
}
