import ArgumentParser
import YrdenProtocol

/// `yrden servers list`: one row per configured server.
struct ServersList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show every configured server: transport, state, what it offers, its last error."
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print the API's JSON as it came, for scripts.")
    var json = false

    func run() async throws {
        try await ClientSession.run(try connection.endpoint()) { client in
            let response = try await client.get("/api/v1/servers")
            if json { return Output.write(response.body) }
            let servers = try (response.json()["servers"]?.arrayValue ?? []).map(ServerView.init)
            guard !servers.isEmpty else { return print("no servers are configured") }
            print(ServerTable(servers: servers, width: Terminal.width(of: Terminal.standardOutput)).rendered())
        }
    }
}

/// The table of `servers list`; the last error is cut to what the terminal has left, or to 60 characters.
struct ServerTable {
    static let header = ["ID", "TRANSPORT", "STATE", "TOOLS", "PROMPTS", "RESOURCES", "LAST ERROR"]
    static let errorWidthWithoutTerminal = 60
    static let minimumErrorWidth = 20

    var servers: [ServerView]
    /// The terminal's width; `nil` when stdout is not a terminal.
    var width: Int?

    func rendered() -> String {
        var table = TextTable(header: Self.header, rightAligned: [3, 4, 5])
        table.rows = servers.map { server in
            [server.id, server.transport, server.state, "\(server.tools)", "\(server.prompts)", "\(server.resources)"]
        }
        let errorWidth: Int
        if let width {
            let used = table.widths.prefix(Self.header.count - 1).reduce(0, +) + 2 * (Self.header.count - 1)
            errorWidth = max(width - used, Self.minimumErrorWidth)
        } else {
            errorWidth = Self.errorWidthWithoutTerminal
        }
        for index in servers.indices {
            let error = servers[index].lastError.map { $0.split(whereSeparator: \.isNewline).joined(separator: " ") }
            table.rows[index].append(Terminal.truncated(error ?? "-", to: errorWidth))
        }
        return table.rendered()
    }
}
