import ArgumentParser
import YrdenProtocol

/// `yrden tools approve SERVER TOOL`: pins a changed tool's new definition, so the gateway serves it again.
struct ToolsApprove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Approve a changed tool's new definition, so the gateway serves it again.",
        discussion: "Read what changed first: `yrden tools pins --changed`."
    )

    @Argument(help: "The server's id.")
    var server: String

    @Argument(help: "The tool's name as the server lists it (without the gateway's prefix).")
    var tool: String

    @Option(help: "Approve only if the new definition still has this digest (from `tools pins --json`).")
    var digest: String?

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await ClientSession.run(try connection.endpoint()) { client in
            let path = AdminClient.serverPath(server, "tools/\(URLText.encode(tool))/approve")
            let response = try await client.post(path, json: digest.map { ["digest": .string($0)] })
            let pin = try response.json()
            print("approved the new definition of \(tool) on \(server) (\(pin["digest"]?.stringValue ?? "?"))")
        }
    }
}
