import FoundationEssentials
import Testing
import YrdenProtocol

@testable import YrdenConfig

/// A registry `server.json` made into an `mcpServers` entry: published files (the interop fixtures) and the
/// schema's corners, each entry checked to decode as the config file would.
@Suite struct RegistryServerJSONTests {
    static let fixtures = URL(filePath: #filePath).deletingLastPathComponent()
        .appending(path: "../interop/fixtures/registry").standardized

    static func fixture(_ name: String) throws -> JSONValue {
        let data = try Data(contentsOf: fixtures.appending(path: name))
        return try JSONValue.parse(Array(data))
    }

    static func convert(_ text: String, choice: String? = nil) throws -> RegistryConversion {
        try RegistryServerJSON.convert(try JSONValue.parse(text), choice: choice)
    }

    static func problems(_ text: String, choice: String? = nil) throws -> [ConfigProblem] {
        do {
            _ = try RegistryServerJSON.convert(try JSONValue.parse(text), choice: choice)
            return []
        } catch let error as RegistryEntryError {
            return error.problems
        }
    }

    /// The entry decoded as the config file's, with `environment` for its references.
    static func spec(_ entry: JSONObject, environment: [String: String] = [:]) throws -> ServerSpec? {
        try Config.server(JSONValue.object(entry).jsonText, environment: environment)
    }

    static let schema = RegistryServerJSON.currentSchema

    @Test func aPyPIPackageRunsThroughUvxAtItsVersion() throws {
        let conversion = try RegistryServerJSON.convert(try Self.fixture("cerebrus-pulse-mcp.server.json"))
        #expect(conversion.entry == ["command": "uvx", "args": ["cerebrus-pulse-mcp==0.5.0"]])
        #expect(conversion.suggestedID == "cerebrus-pulse-mcp")
        #expect(conversion.source == "packages[0]")
        #expect(conversion.notes.isEmpty)
        #expect(try Self.spec(conversion.entry) != nil)
    }

    @Test func aRequiredSecretBecomesAReferenceWithANoteNamingIt() throws {
        let conversion = try RegistryServerJSON.convert(try Self.fixture("unphurl.server.json"))
        #expect(conversion.entry["command"] == "npx")
        #expect(conversion.entry["args"] == ["-y", "@unphurl/mcp-server@0.2.0"])
        #expect(conversion.entry["env"] == ["UNPHURL_API_KEY": "${UNPHURL_API_KEY}"])
        #expect(conversion.notes.count == 1)
        #expect(conversion.notes[0].hasPrefix("set UNPHURL_API_KEY in the gateway's environment (secret"))
        #expect(conversion.suggestedID == "unphurl")
        // Unset, the server is kept and not started (the config's rule for a missing variable).
        #expect(Config.serverProblems(JSONValue.object(conversion.entry).jsonText).isEmpty)
        let spec = try Self.spec(conversion.entry, environment: ["UNPHURL_API_KEY": "k"])
        #expect(spec?.unresolved.isEmpty == true)
    }

    @Test func theRemoteIsTakenWhenChosen() throws {
        let conversion = try RegistryServerJSON.convert(try Self.fixture("unphurl.server.json"), choice: "remotes[0]")
        #expect(conversion.entry == ["url": "https://mcp.unphurl.com/mcp", "type": "http"])
        #expect(try Self.spec(conversion.entry) != nil)
    }

    @Test func anOCIImageRunsInPodmanWithItsVariablesPassedIn() throws {
        let conversion = try RegistryServerJSON.convert(try Self.fixture("mcp-opa-authz.server.json"))
        // Every variable is optional and only one secret: the secret one is a reference, the rest left out.
        #expect(conversion.entry["command"] == "podman")
        #expect(
            conversion.entry["args"]
                == ["run", "-i", "--rm", "-e", "AUTHZEN_PDP_TOKEN", "ghcr.io/kanywst/mcp-opa-authz:0.1.0"]
        )
        #expect(conversion.entry["env"] == ["AUTHZEN_PDP_TOKEN": "${AUTHZEN_PDP_TOKEN}"])
        #expect(conversion.notes.filter { $0.contains("optional and left out") }.count == 4)
        #expect(conversion.suggestedID == "mcp-opa-authz")
    }

    @Test func aRemoteOnlyEntry() throws {
        let conversion = try RegistryServerJSON.convert(try Self.fixture("100hires.server.json"))
        #expect(conversion.entry == ["url": "https://mcp.100hires.com/mcp", "type": "http"])
        #expect(conversion.suggestedID == "100hires")
    }

    @Test func anEarlierDatedSchemaWithTheSameFieldsReads() throws {
        let conversion = try RegistryServerJSON.convert(try Self.fixture("vdb-mcp.server.json"))
        #expect(conversion.entry["args"] == ["vdb-mcp==0.1.2"])
        #expect(conversion.entry["env"] == ["VDB_API_TOKEN": "${VDB_API_TOKEN}"])
        #expect(conversion.suggestedID == "vdb")
    }

    @Test func argumentsHeadersAndURLVariables() throws {
        let conversion = try Self.convert(
            #"""
            {"$schema": "\#(Self.schema)", "name": "com.example/Weather.MCP",
             "packages": [{"registryType": "npm", "identifier": "@x/weather", "version": "2.0.0",
               "registryBaseUrl": "https://npm.example.com", "transport": {"type": "stdio"},
               "runtimeArguments": [{"type": "named", "name": "--node-options", "value": "--max-old-space-size=256"}],
               "packageArguments": [
                 {"type": "positional", "value": "serve"},
                 {"type": "named", "name": "--port", "default": "8080"},
                 {"type": "named", "name": "--verbose", "format": "boolean"},
                 {"type": "positional", "valueHint": "data_dir", "isRequired": true, "description": "where data lives"},
                 {"type": "named", "name": "--price", "value": "$5"}],
               "environmentVariables": [
                 {"name": "API_KEY", "value": "Key {key}", "variables": {"key": {"isSecret": true}}}]}],
             "remotes": [{"type": "sse", "url": "https://{tenant}.example.com/{path}/sse",
               "variables": {"tenant": {"isRequired": true}, "path": {"default": "v1"}},
               "headers": [{"name": "X-API-Key", "isSecret": true, "description": "the key"},
                           {"name": "X-Client", "value": "yrden"},
                           {"name": "X-Optional"}]}]}
            """#
        )
        #expect(conversion.suggestedID == "weather-mcp")
        #expect(
            conversion.entry["args"]
                == [
                    "-y", "--registry", "https://npm.example.com", "--node-options", "--max-old-space-size=256",
                    "@x/weather@2.0.0", "serve", "--port", "${PORT:-8080}", "${DATA_DIR}", "--price", "$$5",
                ]
        )
        #expect(conversion.entry["env"] == ["API_KEY": "Key ${KEY}"])
        #expect(conversion.notes.contains { $0.hasPrefix("set DATA_DIR") && $0.hasSuffix("is set") })
        let spec = try Self.spec(conversion.entry, environment: ["DATA_DIR": "/d", "KEY": "k"])
        #expect(spec?.unresolved.isEmpty == true)

        let remote = try Self.convert(
            try JSONValue.parse(
                #"{"$schema": "\#(Self.schema)", "name": "x/y", "remotes": [{"type": "sse", "url": "https://{tenant}.example.com/{path}/sse", "variables": {"tenant": {"isRequired": true}, "path": {"default": "v1"}}, "headers": [{"name": "X-API-Key", "isSecret": true}, {"name": "X-Client", "value": "yrden"}, {"name": "X-Optional"}]}]}"#
            ).jsonText
        )
        #expect(remote.entry["url"] == "https://${TENANT}.example.com/${MCP_PATH:-v1}/sse")
        #expect(remote.entry["type"] == "sse")
        #expect(remote.entry["headers"] == ["X-API-Key": "${X_API_KEY}", "X-Client": "yrden"])
        #expect(remote.notes.contains { $0.hasPrefix("set TENANT") })
        #expect(remote.notes.contains { $0.hasPrefix("set X_API_KEY") && $0.contains("secret") })
        let remoteSpec = try Self.spec(
            remote.entry,
            environment: ["TENANT": "acme", "MCP_PATH": "v2", "X_API_KEY": "k"]
        )
        #expect(remoteSpec?.unresolved.isEmpty == true)
    }

    @Test func aBundleNamesItsDownloadAndDigest() throws {
        let digest = String(repeating: "ab", count: 32)
        let conversion = try Self.convert(
            #"{"$schema": "\#(Self.schema)", "name": "x/b", "packages": [{"registryType": "mcpb", "identifier": "https://github.com/o/r/releases/download/v1/b.mcpb", "fileSha256": "\#(digest)", "transport": {"type": "stdio"}}]}"#
        )
        #expect(
            conversion.bundle
                == RegistryBundle(
                    url: "https://github.com/o/r/releases/download/v1/b.mcpb",
                    sha256: digest,
                    path: "packages[0].fileSha256"
                )
        )
    }

    @Test func badFilesAreRefusedNamingTheField() throws {
        let unknown = try Self.problems(#"{"$schema": "https://example.com/other.json", "name": "x/y", "remotes": []}"#)
        #expect(unknown.map(\.path) == ["$schema"])
        #expect(unknown.first?.message == #"unknown server.json schema "https://example.com/other.json""#)
        #expect(try Self.problems(#"{"name": "x/y"}"#).map(\.path) == ["$schema"])
        #expect(try Self.problems(#"{"$schema": "\#(Self.schema)", "packages": []}"#).map(\.path) == ["name"])
        #expect(try Self.problems(#"{"$schema": "\#(Self.schema)", "name": "x/y"}"#).map(\.path) == ["packages"])
        let nuget = try Self.problems(
            #"{"$schema": "\#(Self.schema)", "name": "x/y", "packages": [{"registryType": "nuget", "identifier": "X", "transport": {"type": "stdio"}}]}"#
        )
        #expect(nuget.map(\.path) == ["packages[0].registryType"])
        let http = try Self.problems(
            #"{"$schema": "\#(Self.schema)", "name": "x/y", "packages": [{"registryType": "pypi", "identifier": "x", "transport": {"type": "streamable-http"}}]}"#
        )
        #expect(http.map(\.path) == ["packages[0].transport.type"])
        let hash = try Self.problems(
            #"{"$schema": "\#(Self.schema)", "name": "x/y", "packages": [{"registryType": "mcpb", "identifier": "https://h/b.mcpb", "fileSha256": "ABC", "transport": {"type": "stdio"}}]}"#
        )
        #expect(hash.map(\.path) == ["packages[0].fileSha256"])
        #expect(
            try Self.problems(#"{"$schema": "\#(Self.schema)", "name": "x/y", "remotes": []}"#, choice: "remotes[3]")
                .map(\.path) == ["remotes[3]"]
        )
    }

    @Test func aFileListingTooManyWaysToRunItIsRefused() throws {
        let remote = #"{"type": "streamable-http", "url": "https://h/mcp"}"#
        let remotes = Array(repeating: remote, count: RegistryServerJSON.maxCandidates + 1).joined(separator: ",")
        let problems = try Self.problems(#"{"$schema": "\#(Self.schema)", "name": "x/y", "remotes": [\#(remotes)]}"#)
        #expect(problems.map(\.path) == ["remotes"])
    }

    @Test func aSkippedCandidateIsNotedWhenALaterOneIsUsed() throws {
        let conversion = try Self.convert(
            #"{"$schema": "\#(Self.schema)", "name": "x/y", "packages": [{"registryType": "nuget", "identifier": "X", "transport": {"type": "stdio"}}], "remotes": [{"type": "streamable-http", "url": "https://h/mcp"}]}"#
        )
        #expect(conversion.source == "remotes[0]")
        #expect(conversion.notes.first?.hasPrefix("packages[0] skipped: packages[0].registryType") == true)
    }

    @Test func aRegistryAnswerIsReadThroughItsServerMember() throws {
        let answer: JSONValue = ["server": try Self.fixture("100hires.server.json"), "_meta": [:]]
        #expect(RegistryServerJSON.isServerJSON(answer))
        #expect(try RegistryServerJSON.convert(answer).source == "server.remotes[0]")
        #expect(!RegistryServerJSON.isServerJSON(["id": "x", "config": ["command": "x"]]))
        #expect(RegistryServerJSON.isServerJSON(try Self.fixture("unphurl.server.json")))
    }

    @Test func serverIDsFromNames() {
        #expect(RegistryServerID.make(fromName: "io.github.owner/Weather__MCP.v2") == "weather_mcp-v2")
        #expect(RegistryServerID.make(fromName: "io.github.owner/--") == "server")
        #expect(RegistryServerID.make(fromName: "x/" + String(repeating: "a", count: 80)).count == 63)
    }
}
