import ArgumentParser

/// `yrden login ID`: the OAuth sign-in of a server, from the authorization URL to the server connected.
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign a server in with OAuth: print the authorization URL, wait until the server is connected.",
        discussion: """
            The URL opens in a browser by itself where there is a graphical session (DISPLAY or \
            WAYLAND_DISPLAY); otherwise open it yourself. The browser comes back to the gateway's own \
            callback, and the command ends once the server is connected.
            """
    )

    @Argument(help: "The id of a server whose entry has \"auth\": {\"type\": \"oauth\"}.")
    var id: String

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("How long to wait for the sign-in, in seconds.", valueName: "seconds"))
    var timeout: Double = 300

    @Flag(help: "Only print the URL; do not try to open a browser.")
    var noBrowser = false

    func validate() throws {
        guard timeout > 0, timeout <= 86_400 else {
            throw ValidationError("--timeout must be between 0 and 86400 seconds")
        }
    }

    func run() async throws {
        try await ClientSession.run(try connection.endpoint()) { client in
            let flow = SignIn(
                client: client,
                id: id,
                timeout: .milliseconds(Int64(timeout * 1000)),
                opensBrowser: !noBrowser && Browser.isAvailable
            )
            let server = try await flow.run()
            print("\(server.id): signed in and connected (\(server.countsText))")
        }
    }
}
