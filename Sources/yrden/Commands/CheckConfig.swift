import ArgumentParser
import YrdenConfig

struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a config file and print every problem with its JSON path."
    )

    @Argument(help: "The config file to check.")
    var file: String

    func run() throws {
        do {
            let config = try ConfigLoader.load(path: file, environment: ConfigEnvironment.current())
            print("\(file): ok, \(config.servers.count) server(s): \(config.servers.map(\.id).joined(separator: ", "))")
        } catch {
            ConfigSource.report(error)
            throw ExitCode(2)
        }
    }
}
