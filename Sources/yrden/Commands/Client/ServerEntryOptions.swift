import ArgumentParser
import YrdenProtocol

/// The flags of `servers add` that make up the server's entry, as the config file's `mcpServers` holds it.
struct ServerEntryOptions: ParsableArguments {
    @Option(help: "The program of a stdio server, run directly (no shell).")
    var command: String?

    @Option(
        name: .customLong("arg"),
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp("An argument for --command; repeat for more.", valueName: "arg")
    )
    var args: [String] = []

    @Option(
        name: .customLong("env"),
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp("An environment variable for --command; repeat for more.", valueName: "KEY=VALUE")
    )
    var environment: [String] = []

    @Option(help: "The URL of a remote (Streamable HTTP, SSE or WebSocket) server.")
    var url: String?

    @Option(
        help: ArgumentHelp(
            "Pin the remote transport: http (Streamable HTTP only), sse (legacy HTTP+SSE) or websocket "
                + "(ws://, wss://)."
        )
    )
    var type: RemoteTransport?

    @Option(
        name: .customLong("header"),
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp("A header sent with every request to --url; repeat for more.", valueName: "Name: value")
    )
    var headers: [String] = []

    @Option(help: "What the server's tools and prompts are called by on /mcp (default: its id).")
    var prefix: String?

    @Flag(help: "Add it disabled: configured and listed, never connected.")
    var disabled = false

    @Option(help: ArgumentHelp("The whole entry as JSON, as in the config file's mcpServers.", valueName: "json"))
    var jsonEntry: String?

    @Option(
        help: ArgumentHelp(
            "A server.json of the MCP registry (schema 2025-12-11): the gateway makes the entry from it.",
            valueName: "file"
        )
    )
    var from: String?

    @Option(
        help: ArgumentHelp(
            "With --from: the package or remote to take, such as packages[1] or remotes[0] (default: the first usable package, then remote).",
            valueName: "item"
        )
    )
    var use: String?

    func validate() throws {
        guard from == nil else {
            let flags = command != nil || url != nil || jsonEntry != nil || !args.isEmpty || !environment.isEmpty
            if flags || type != nil || !headers.isEmpty || prefix != nil || disabled {
                throw ValidationError("--from makes the whole entry: give no other entry flag with it")
            }
            return
        }
        if use != nil { throw ValidationError("--use chooses within a --from file: add --from") }
        _ = try entry()
    }

    /// The entry to send: `--json-entry`, with each flag given setting its key (`--env` and `--header` add to
    /// what the JSON holds). The gateway validates the result as it validates the config file.
    func entry() throws(ValidationError) -> JSONValue {
        if command != nil && url != nil {
            throw ValidationError("give --command (a stdio server) or --url (a remote server), not both")
        }
        if command != nil && (type != nil || !headers.isEmpty) {
            throw ValidationError("--type and --header apply to a remote server (--url), not to --command")
        }
        if url != nil && (!args.isEmpty || !environment.isEmpty) {
            throw ValidationError("--arg and --env apply to a stdio server (--command), not to --url")
        }
        var entry = try jsonObject()
        if command == nil && url == nil && entry["command"] == nil && entry["url"] == nil {
            throw ValidationError("give --command (a stdio server) or --url (a remote server), or --json-entry")
        }
        if let command { entry["command"] = .string(command) }
        if !args.isEmpty { entry["args"] = .array(args.map { .string($0) }) }
        if !environment.isEmpty {
            entry["env"] = .object(
                try merged(entry["env"], environment, separator: "=", flag: "--env", form: "KEY=VALUE")
            )
        }
        if let url { entry["url"] = .string(url) }
        if let type { entry["type"] = .string(type.rawValue) }
        if !headers.isEmpty {
            entry["headers"] = .object(
                try merged(entry["headers"], headers, separator: ":", flag: "--header", form: "'Name: value'")
            )
        }
        if let prefix { entry["prefix"] = .string(prefix) }
        if disabled { entry["disabled"] = .bool(true) }
        return .object(entry)
    }

    private func jsonObject() throws(ValidationError) -> JSONObject {
        guard let jsonEntry else { return JSONObject() }
        let value: JSONValue
        do {
            value = try JSONValue.parse(jsonEntry)
        } catch {
            throw ValidationError("--json-entry is not JSON: \(error)")
        }
        guard let object = value.objectValue else {
            throw ValidationError("--json-entry must be a JSON object, such as '{\"command\": \"npx\"}'")
        }
        return object
    }

    /// `existing` (an object from --json-entry, or nothing) with each `NAME<separator>VALUE` item added. A
    /// header's name and value lose the blanks around them, as HTTP reads them; a variable's are kept.
    private func merged(
        _ existing: JSONValue?,
        _ items: [String],
        separator: Character,
        flag: String,
        form: String
    ) throws(ValidationError) -> JSONObject {
        var object = existing?.objectValue ?? JSONObject()
        let trim = separator == ":"
        for item in items {
            let split = item.firstIndex(of: separator)
            let name = split.map { trim ? item[..<$0].blankTrimmed : item[..<$0] } ?? ""
            guard let split, !name.isEmpty else {
                throw ValidationError("\(flag) '\(item)': expected \(form)")
            }
            let value = item[item.index(after: split)...]
            object[String(name)] = .string(String(trim ? value.blankTrimmed : value))
        }
        return object
    }
}

extension Substring {
    /// Without the spaces and tabs at either end.
    fileprivate var blankTrimmed: Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
