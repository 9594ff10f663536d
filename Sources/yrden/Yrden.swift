import ArgumentParser

@main
struct Yrden: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "yrden",
        abstract: "An MCP gateway: many MCP servers behind one endpoint.",
        version: "0.1.0",
        subcommands: [
            Serve.self, Stdio.self, CheckConfig.self, DemoServerCommand.self, Servers.self, Login.self, Logs.self,
        ],
        defaultSubcommand: Serve.self
    )

    /// Runs the command, with bad usage exiting 2 as the CLI contract says (ArgumentParser's own code is 64).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                var standardError = StandardError()
                print(fullMessage(for: error), to: &standardError)
                print("See 'yrden --help'.", to: &standardError)
                Self.exit(withError: ExitCode(2))
            }
            Self.exit(withError: error)
        }
    }
}
