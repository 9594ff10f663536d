import ArgumentParser

/// `yrden servers connect ID`: a connection attempt now.
struct ServersConnect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Connect a server now (after disconnect, or when its retries gave up)."
    )

    @Argument(help: "The server's id.")
    var id: String

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var waiting: WaitOptions

    func run() async throws {
        try await ClientSession.run(try connection.endpoint()) { client in
            let server = try ServerView(try await client.post(AdminClient.serverPath(id, "connect")).json())
            try await waiting.finish(client, server)
        }
    }
}

/// `yrden servers disconnect ID`: closed, and left so until `connect` or `restart`.
struct ServersDisconnect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disconnect",
        abstract: "Disconnect a server and keep it disconnected until `connect` or `restart` (not saved)."
    )

    @Argument(help: "The server's id.")
    var id: String

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await ClientSession.run(try connection.endpoint()) { client in
            let server = try ServerView(try await client.post(AdminClient.serverPath(id, "disconnect")).json())
            print("\(server.id): \(server.state)")
        }
    }
}

/// `yrden servers restart ID`: disconnect, then connect again (a stdio child is replaced).
struct ServersRestart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restart",
        abstract: "Disconnect a server, then connect it again (a stdio server gets a new process)."
    )

    @Argument(help: "The server's id.")
    var id: String

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var waiting: WaitOptions

    func run() async throws {
        try await ClientSession.run(try connection.endpoint()) { client in
            let server = try ServerView(try await client.post(AdminClient.serverPath(id, "restart")).json())
            try await waiting.finish(client, server)
        }
    }
}
