import ArgumentParser

/// `--wait` and `--timeout` of the commands that start a connection.
struct WaitOptions: ParsableArguments {
    @Flag(help: "Wait until the server is connected; exit 1 if it fails to connect.")
    var wait = false

    @Option(help: ArgumentHelp("How long --wait waits, in seconds.", valueName: "seconds"))
    var timeout: Double = 30

    var duration: Duration { .milliseconds(Int64(timeout * 1000)) }

    func validate() throws {
        guard timeout > 0, timeout <= 86_400 else {
            throw ValidationError("--timeout must be between 0 and 86400 seconds")
        }
    }

    /// After the action answered: the connected server's counts, or the state it was left in.
    func finish(_ client: AdminClient, _ server: ServerView) async throws {
        guard wait else {
            print("\(server.id): \(server.state)" + (server.lastError.map { " (\($0))" } ?? ""))
            return
        }
        let connected = try await ConnectionWait(client: client, id: server.id, timeout: duration).run()
        print("\(connected.id): connected (\(connected.countsText))")
    }
}
