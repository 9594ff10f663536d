import ArgumentParser

/// `yrden servers remove ID`: stops the server and deletes its entry (and stored tokens).
struct ServersRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Stop a server and remove it from the gateway's config."
    )

    @Argument(help: "The server's id.")
    var id: String

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await ClientSession.run(try connection.endpoint()) { client in
            _ = try await client.delete(AdminClient.serverPath(id))
            print("removed \(id)")
        }
    }
}
