import ArgumentParser
import Logging
import YrdenApp
import YrdenConfig

struct Stdio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the same aggregate over stdio, for hosts that can only launch a command.",
        discussion: "stdout carries MCP messages only; logs go to stderr (warnings and worse by default)."
    )

    @OptionGroup var options: GatewayOptions

    @Option(name: .long, help: "Serve this profile of the config (its servers, tools and names) instead of everything.")
    var profile: String?

    func run() async throws {
        try await options.run(defaultLogLevel: .warning) { app in
            if let profile, app.config.profile(named: profile) == nil {
                let known = app.config.profiles.map(\.name)
                let hint =
                    known.isEmpty ? "the config has no \"profiles\"" : "profiles: \(known.joined(separator: ", "))"
                var standardError = StandardError()
                print("yrden: there is no profile \"\(profile)\" (\(hint))", to: &standardError)
                throw ExitCode(2)
            }
            try await app.runStdio(profile: profile)
        }
    }
}
