import ArgumentParser

@main
struct Yrden: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "yrden",
        abstract: "An MCP gateway: many MCP servers behind one endpoint.",
        version: "0.1.0",
        subcommands: [
            Serve.self, Stdio.self, CheckConfig.self, DemoServerCommand.self, Servers.self, Profiles.self, Tools.self,
            Login.self,
            Logs.self, Audit.self,
        ],
        defaultSubcommand: Serve.self
    )

    /// Runs the command, with bad usage exiting 2 as the CLI contract says (ArgumentParser's own code is 64).
    static func main() async {
        if let unknown = unknownCommand(in: Array(CommandLine.arguments.dropFirst())) {
            var standardError = StandardError()
            print("error: '\(unknown)' is not a yrden command", to: &standardError)
            print("Commands: \(commandNames.joined(separator: ", ")). See 'yrden --help'.", to: &standardError)
            Self.exit(withError: ExitCode(2))
        }
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

    static var commandNames: [String] {
        configuration.subcommands.map { $0._commandName }
    }

    /// The first argument when it is a word that names no command. `serve` is the default command but takes no
    /// positional arguments, so without this `yrden bogus` would print serve's usage instead of the mistake.
    static func unknownCommand(in arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        return commandNames.contains(first) || first == "help" ? nil : first
    }
}
