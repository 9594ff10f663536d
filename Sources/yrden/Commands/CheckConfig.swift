import ArgumentParser
import YrdenConfig

/// `yrden check-config FILE`: every problem with its JSON path (exit 2), or what the gateway would run.
///
/// A file that loads exits 0 but still says what a running gateway would not do as written: servers that
/// will show as failed because a `${VAR}` is not set here, and hosts' keys that are ignored.
struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a config file and print every problem with its JSON path."
    )

    @Argument(help: "The config file to check.")
    var file: String

    func run() throws {
        do {
            let (config, notices) = try ConfigLoader.check(path: file, environment: ConfigEnvironment.current())
            print("\(file): \(Self.summary(config))")
            var standardError = StandardError()
            for server in config.servers where !server.unresolved.isEmpty {
                for reference in server.unresolved {
                    print(
                        "\(file): warning: \(reference.path): \(reference.message) — \(reference.fix); server"
                            + " \(server.id.debugDescription) will show as failed and not start until then",
                        to: &standardError
                    )
                }
            }
            for notice in notices {
                print("\(file): notice: \(notice)", to: &standardError)
            }
        } catch {
            ConfigSource.report(error)
            throw ExitCode(2)
        }
    }

    /// `ok, 2 servers: time, search` — or, for a file without any, what to add.
    static func summary(_ config: GatewayConfig) -> String {
        let ids = config.servers.map(\.id)
        switch ids.count {
        case 0: return #"ok, no servers yet; add them under "mcpServers""#
        case 1: return "ok, 1 server: \(ids[0])"
        default: return "ok, \(ids.count) servers: \(ids.joined(separator: ", "))"
        }
    }
}
