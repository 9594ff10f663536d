import Testing

@testable import YrdenConfig

/// An unset variable in a server entry fails that server, not the file; in the `gateway` section it still
/// fails the file, since the gateway itself cannot run without it.
@Suite struct UnresolvedReferenceTests {
    /// The sample config of the README, which names REMOTE_TOKEN without setting it.
    static let readmeSample = """
        {
          "gateway": { "listen": "127.0.0.1:8750", "toolSeparator": "__" },
          "mcpServers": {
            "time": { "command": "python3", "args": ["-m", "mcp_server_time"], "env": { "TZ": "UTC" } },
            "demo": { "command": "${YRDEN_EXECUTABLE}", "args": ["demo-server"] },
            "remote": { "url": "http://127.0.0.1:9000/mcp", "headers": { "Authorization": "Bearer ${REMOTE_TOKEN}" } }
          }
        }
        """

    static let remoteTokenFix =
        "set it where the gateway runs and restart the gateway (it reads its environment once), or write"
        + " ${REMOTE_TOKEN:-default}"

    @Test func theReadmeSampleLoadsWithOneServerThatCannotStart() throws {
        let config = try Config.decode(Self.readmeSample, environment: ["YRDEN_EXECUTABLE": "/bin/yrden"])
        #expect(config.servers.map(\.id) == ["time", "demo", "remote"])
        #expect(config.server(id: "time")?.configFailure == nil)
        #expect(config.server(id: "demo")?.configFailure == nil)
        let remote = try #require(config.server(id: "remote"))
        #expect(
            remote.unresolved == [
                UnresolvedReference(
                    path: "mcpServers.remote.headers.Authorization",
                    message: "environment variable REMOTE_TOKEN is not set",
                    fix: Self.remoteTokenFix
                )
            ]
        )
        #expect(remote.transport.kindName == "http")
        #expect(
            remote.configFailure
                == "environment variable REMOTE_TOKEN is not set (mcpServers.remote.headers.Authorization); "
                + Self.remoteTokenFix
        )
    }

    @Test func settingTheVariableMakesTheServerStartable() throws {
        let environment = ["YRDEN_EXECUTABLE": "/bin/yrden", "REMOTE_TOKEN": "t"]
        let remote = try #require(try Config.decode(Self.readmeSample, environment: environment).server(id: "remote"))
        #expect(remote.configFailure == nil)
        #expect(
            remote.transport
                == .http(
                    url: "http://127.0.0.1:9000/mcp",
                    headers: ["Authorization": "Bearer t"],
                    auth: .none,
                    fallbackToSSE: true
                )
        )
    }

    @Test func aValueThatCannotBeJudgedWithoutItsVariableIsNotAlsoAProblem() throws {
        let server = try #require(try Config.server(#"{"url": "https://${HOST}:${PORT}/mcp"}"#))
        #expect(
            server.unresolved.map(\.message) == [
                "environment variable HOST is not set", "environment variable PORT is not set",
            ]
        )
        #expect(server.configFailure?.contains("(and 1 more reference(s) like it)") == true)
    }

    @Test func anUnsetCommandKeepsTheServerAsStdio() throws {
        let server = try #require(try Config.server(#"{"command": "${BIN}", "args": ["${ARG}"]}"#))
        #expect(server.transport.kindName == "stdio")
        #expect(server.unresolved.map(\.path) == ["mcpServers.s.command", "mcpServers.s.args[0]"])
    }

    @Test func otherProblemsOfTheEntryStillFailTheFile() {
        let problems = Config.serverProblems(#"{"command": "${BIN}", "comand": "x"}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.comand"])
    }

    @Test func aMalformedReferenceIsStillAProblem() {
        let problems = Config.serverProblems(#"{"command": "${1BAD}"}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.command"])
    }

    @Test func anUnsetVariableInTheGatewaySectionFailsTheFile() {
        let problems = Config.problems(#"{"gateway": {"publicURL": "${PUBLIC_URL}"}, "mcpServers": {}}"#)
        #expect(problems.map(\.path) == ["gateway.publicURL"])
        #expect(problems.first?.message == "environment variable PUBLIC_URL is not set")
    }

    @Test func anInputPromptInTheGatewaySectionFailsTheFile() {
        let problems = Config.problems(#"{"gateway": {"dataDir": "${input:dir}"}}"#)
        #expect(problems.map(\.path) == ["gateway.dataDir"])
        #expect(problems.first?.message.contains("VS Code input prompt") == true)
    }

    @Test func envPrefixReadsTheEnvironment() throws {
        let server = try #require(try Config.server(#"{"command": "${env:BIN}"}"#, environment: ["BIN": "/bin/x"]))
        #expect(server.transport == .stdio(command: "/bin/x", args: [], env: [:], cwd: nil))
    }
}
