import ArgumentParser
import Logging

/// `yrden logs`: the gateway's recent log entries, and with `--follow` the new ones as they come.
struct Logs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the gateway's recent log entries (its own, and each server's, stdio stderr included).",
        discussion: "Each line is TIME LEVEL SERVER EVENT MESSAGE; SERVER is '-' for the gateway's own entries."
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("Only entries about this server.", valueName: "id"))
    var server: String?

    @Option(help: "The lowest level shown: trace, debug, info, notice, warning, error, critical.")
    var level: Logger.Level?

    @Option(help: ArgumentHelp("At most this many of the newest entries, 1 to 1000 (the gateway's default: 100)."))
    var limit: Int?

    @Flag(name: [.short, .long], help: "Keep printing new entries (polled every second) until interrupted.")
    var follow = false

    @Flag(help: "Print JSON: the API's answer as it came, or with --follow one entry per line.")
    var json = false

    /// How often `--follow` asks for new entries; there is no log stream to follow instead.
    static let pollInterval: Duration = .seconds(1)

    func validate() throws {
        if let limit, !(1...1000).contains(limit) { throw ValidationError("--limit must be between 1 and 1000") }
    }

    func run() async throws {
        var filters: [(String, String)] = []
        if let server { filters.append(("server", server)) }
        if let level { filters.append(("level", level.rawValue)) }
        let firstQuery = filters + (limit.map { [("limit", String($0))] } ?? [])
        try await ClientSession.run(try connection.endpoint()) { client in
            let first = try await client.get("/api/v1/logs", query: firstQuery)
            if json && !follow { return Output.write(first.body) }
            var cursor = LogCursor()
            var printer = LogPrinter(json: json)
            printer.print(cursor.newEntries(in: try first.json()))
            while follow {
                try await Task.sleep(for: Self.pollInterval)
                let query = filters + [("limit", "1000")] + (cursor.since.map { [("since", $0)] } ?? [])
                printer.print(cursor.newEntries(in: try await client.get("/api/v1/logs", query: query).json()))
            }
        }
    }
}
