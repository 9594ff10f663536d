import ArgumentParser
import NIOHTTP1
import YrdenConfig
import YrdenProtocol

/// `yrden servers add ID …`: a new `mcpServers` entry, saved by the gateway and connected in the background.
struct ServersAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a server to the running gateway (saved to its config) and start connecting it.",
        discussion: """
            Give a stdio server's --command (with --arg and --env) or a remote server's --url (with --type \
            and --header), or a whole entry as --json-entry, whose keys the other flags override, or a \
            server.json of the MCP registry as --from (the id then defaults from its name). Here --url \
            is the new server's address: give the gateway's as --gateway or YRDEN_URL.
            """
    )

    @Argument(help: "The new server's id: lowercase letters, digits, '_' and '-' (with --from, made from its name).")
    var id: String?

    @OptionGroup var connection: AddConnectionOptions
    @OptionGroup var entryOptions: ServerEntryOptions
    @OptionGroup var waiting: WaitOptions

    @Flag(help: "With --wait: remove the server again when it does not connect in time.")
    var rollback = false

    func validate() throws {
        if id == nil && entryOptions.from == nil {
            throw ValidationError("name the new server: yrden servers add ID …")
        }
        if entryOptions.disabled && waiting.wait {
            throw ValidationError("a --disabled server never connects: drop --wait")
        }
        if rollback && !waiting.wait {
            throw ValidationError("--rollback undoes an add that --wait saw fail: add --wait")
        }
    }

    func run() async throws {
        let (id, request, query) = try newServer()
        try await ClientSession.run(try connection.endpoint()) { client in
            let answer = try await client.send(.POST, "/api/v1/servers", query: query, body: request)
            let server = try ServerView(try answer.json())
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

extension ServersAdd {
    /// The id, the body and the query to send: `{"id", "config"}` from the flags, or the `--from` file as it
    /// is (the gateway makes the entry, and downloads what it needs), read here first so that a bad file is
    /// told before anything is sent and the variables to set are named.
    private func newServer() throws -> (id: String, body: JSONValue, query: [(String, String)]) {
        guard let path = entryOptions.from else {
            let entry = try entryOptions.entry()
            noteReferences(in: entry)
            return (id ?? "", .object(["id": .string(id ?? ""), "config": entry]), [])
        }
        let document: JSONValue
        let conversion: RegistryConversion
        do {
            document = try RegistryServerJSON.read(path: path)
            conversion = try RegistryServerJSON.convert(document, choice: entryOptions.use)
        } catch {
            throw ClientFailure(["\(path) cannot be added:"] + error.problems.map { "  \($0)" })
        }
        let id = id ?? conversion.suggestedID
        Terminal.note("\(path): \(conversion.name) \(conversion.version ?? ""), from its \(conversion.source)")
        for note in conversion.notes { Terminal.note(note) }
        var query = [("id", id)]
        if let use = entryOptions.use { query.append(("use", use)) }
        return (id, document, query)
    }

    private func noteReferences(in entry: JSONValue) {
        for name in EnvironmentReferences.names(in: entry) {
            Terminal.note(
                "${\(name)} is expanded where the gateway runs, from its environment, not this shell's: "
                    + "the server fails to connect until \(name) is set there"
            )
        }
    }
}

/// The remote transports `--type` can pin.
enum RemoteTransport: String, ExpressibleByArgument, CaseIterable {
    case http
    case sse
    case websocket
}
