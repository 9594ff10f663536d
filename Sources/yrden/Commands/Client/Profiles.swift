import ArgumentParser
import NIOHTTP1
import YrdenConfig
import YrdenProtocol

/// `yrden profiles …`: the gateway's profiles (`/mcp/<name>`), through the admin API; written back to the config.
struct Profiles: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, show, set and remove the running gateway's profiles (through the admin API).",
        discussion: """
            A profile is a view of the gateway served at /mcp/<name>: some servers, some tools, other names. \
            These commands talk to a running `yrden serve` at --url (env YRDEN_URL) with the admin token from \
            --token (env YRDEN_ADMIN_TOKEN).
            """,
        subcommands: [ProfilesList.self, ProfilesShow.self, ProfilesSet.self, ProfilesRemove.self],
        defaultSubcommand: ProfilesList.self
    )

    static func path(_ name: String) -> String {
        "/api/v1/profiles/\(URLText.encode(name))"
    }
}

/// `yrden profiles list`: one row per profile.
struct ProfilesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Show every profile.")

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print the API's JSON as it came, for scripts.")
    var json = false

    func run() async throws {
        try await ClientSession.run(try connection.endpoint()) { client in
            let response = try await client.get("/api/v1/profiles")
            if json { return Output.write(response.body) }
            let profiles = try response.json()["profiles"]?.arrayValue ?? []
            guard !profiles.isEmpty else { return print("no profiles are configured") }
            var table = TextTable(header: ["NAME", "URL", "SERVERS", "TOOL MODE"], rightAligned: [])
            table.rows = profiles.map { profile in
                let config = profile["config"]
                let servers = config?["servers"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ",") ?? "all"
                return [
                    profile["name"]?.stringValue ?? "?", profile["url"]?.stringValue ?? "?", servers,
                    config?["toolMode"]?.stringValue ?? "all",
                ]
            }
            print(table.rendered())
        }
    }
}

/// `yrden profiles show NAME`: the profile's entry, and the tools its clients see.
struct ProfilesShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a profile's entry and the tools its clients see (with the server and name each goes to)."
    )

    @Argument(help: "The profile's name.")
    var name: String

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await ClientSession.run(try connection.endpoint()) { client in
            let profile = try await client.get(Profiles.path(name)).json()
            let tools = try await client.get(Profiles.path(name) + "/tools").json()
            print(String(decoding: (profile["config"] ?? [:]).serialized(), as: UTF8.self))
            var table = TextTable(header: ["TOOL", "SERVER", "UPSTREAM NAME"], rightAligned: [])
            table.rows = (tools["tools"]?.arrayValue ?? []).map { tool in
                [
                    tool["tool"]?["name"]?.stringValue ?? "?", tool["server"]?.stringValue ?? "?",
                    tool["upstreamName"]?.stringValue ?? "?",
                ]
            }
            print(table.rendered())
            for conflict in tools["conflicts"]?.arrayValue ?? [] { print("conflict: \(conflict.stringValue ?? "")") }
        }
    }
}

/// `yrden profiles set NAME JSON`: creates or replaces a profile.
struct ProfilesSet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Create or replace a profile from its JSON entry.",
        discussion: #"Example: yrden profiles set coding '{"servers": ["git"], "tools": {"deny": ["git__push"]}}'"#
    )

    @Argument(help: "The profile's name (lowercase letters, digits, _ and -).")
    var name: String

    @Argument(help: "The profile's entry, as JSON.")
    var entry: String

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let parsed: JSONValue
        do { parsed = try JSONValue.parse(Array(entry.utf8)) } catch {
            throw ValidationError("the entry is not JSON: \(error)")
        }
        let endpoint = try connection.endpoint()
        try await ClientSession.run(endpoint) { client in
            let response = try await client.send(.PUT, Profiles.path(name), body: parsed)
            print("\(response.status == 201 ? "added" : "replaced") \(name): \(endpoint.baseURL)/mcp/\(name)")
            let renamed = parsed["rename"]?.objectValue?.map(\.key) ?? []
            guard !renamed.isEmpty else { return }
            let tools = try await client.get("/api/v1/tools").json()
            let names = (tools["tools"]?.arrayValue ?? []).compactMap { $0["tool"]?["name"]?.stringValue }
            var standardError = StandardError()
            for line in Self.unknownRenames(renamed, among: names) { print(line, to: &standardError) }
        }
    }

    /// A warning for each renamed name that `/mcp` does not list (a typo, or a name without its server's
    /// prefix), with the nearest names it does list: the gateway accepts such a rename, since the server may
    /// list the tool later, but it does nothing until then.
    static func unknownRenames(_ renamed: [String], among listed: [String]) -> [String] {
        let known = Set(listed)
        return renamed.filter { !known.contains($0) }.map { name in
            let nearest = KeySuggestion.nearest(to: name, among: listed)
            let hint =
                nearest.isEmpty
                ? "/mcp lists no tools now"
                : "closest on /mcp: " + nearest.map { "\"\($0)\"" }.joined(separator: ", ")
            return "warning: rename names \"\(name)\", which /mcp does not list now (renames use /mcp's names); \(hint)"
        }
    }
}

/// `yrden profiles remove NAME`.
struct ProfilesRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a profile.")

    @Argument(help: "The profile's name.")
    var name: String

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await ClientSession.run(try connection.endpoint()) { client in
            _ = try await client.delete(Profiles.path(name))
            print("removed \(name)")
        }
    }
}
