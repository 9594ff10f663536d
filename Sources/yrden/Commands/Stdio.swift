import ArgumentParser
import Logging
import YrdenApp

struct Stdio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the same aggregate over stdio, for hosts that can only launch a command.",
        discussion: "stdout carries MCP messages only; logs go to stderr (warnings and worse by default)."
    )

    @OptionGroup var options: GatewayOptions

    func run() async throws {
        try await options.run(defaultLogLevel: .warning) { try await $0.runStdio() }
    }
}
