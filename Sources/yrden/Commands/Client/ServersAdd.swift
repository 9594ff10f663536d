import ArgumentParser
import YrdenConfig
import YrdenProtocol

/// `yrden servers add ID …`: a new `mcpServers` entry, saved by the gateway and connected in the background.
struct ServersAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a server to the running gateway (saved to its config) and start connecting it.",
        discussion: """
            Give a stdio server's --command (with --arg and --env) or a remote server's --url (with --type \
            and --header), or a whole entry as --json-entry, whose keys the other flags override. Here --url \
            is the new server's address: give the gateway's as --gateway or YRDEN_URL.
            """
    )

    @Argument(help: "The new server's id: lowercase letters, digits, '_' and '-'.")
    var id: String

    @OptionGroup var connection: AddConnectionOptions
    @OptionGroup var entryOptions: ServerEntryOptions
    @OptionGroup var waiting: WaitOptions

    @Flag(help: "With --wait: remove the server again when it does not connect in time.")
    var rollback = false

    func validate() throws {
        if entryOptions.disabled && waiting.wait {
            throw ValidationError("a --disabled server never connects: drop --wait")
        }
        if rollback && !waiting.wait {
            throw ValidationError("--rollback undoes an add that --wait saw fail: add --wait")
        }
    }

    func run() async throws {
        let entry = try entryOptions.entry()
        for name in EnvironmentReferences.names(in: entry) {
            Terminal.note(
                "${\(name)} is expanded where the gateway runs, from its environment, not this shell's: "
                    + "the server fails to connect until \(name) is set there"
            )
        }
        try await ClientSession.run(try connection.endpoint()) { client in
            let request: JSONValue = .object(["id": .string(id), "config": entry])
            let server = try ServerView(try await client.post("/api/v1/servers", json: request).json())
            print("added \(server.id)")
            do {
                try await waiting.finish(client, server)
            } catch var failure as ClientFailure {
                if rollback {
                    _ = try await client.delete(AdminClient.serverPath(id))
                    failure.lines.append("removed \(id) again (--rollback)")
                } else {
                    failure.lines.append(
                        "\(id) stays in the gateway's config and keeps retrying: `yrden servers remove \(id)` "
                            + "removes it (--rollback does that when --wait fails)"
                    )
                }
                throw failure
            }
        }
    }
}

/// The remote transports `--type` can pin.
enum RemoteTransport: String, ExpressibleByArgument, CaseIterable {
    case http
    case sse
}
