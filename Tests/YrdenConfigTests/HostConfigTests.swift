import Testing

@testable import YrdenConfig

/// Real hosts' config files, as the hosts document them, load as they are (`Tests/Fixtures/hosts`): their
/// servers are read, their own keys mapped or ignored with a notice, and what cannot be honoured is named.
@Suite struct HostConfigTests {
    /// `Tests/Fixtures/hosts/<name>`, found from this file's path so no bundle resources are needed.
    static func fixture(_ name: String) -> String {
        let testsDirectory = #filePath.split(separator: "/").dropLast(2).joined(separator: "/")
        return "/\(testsDirectory)/Fixtures/hosts/\(name)"
    }

    static func check(
        _ name: String,
        environment: [String: String] = [:]
    ) throws(ConfigError) -> (config: GatewayConfig, notices: [ConfigProblem]) {
        try ConfigLoader.check(path: fixture(name), environment: environment)
    }

    @Test func claudeDesktopIgnoresItsShortcut() throws {
        let (config, notices) = try Self.check("claude_desktop_config.json")
        #expect(config.servers.map(\.id) == ["filesystem", "github"])
        #expect(notices.map(\.path) == ["globalShortcut"])
        #expect(notices.first?.message.contains("Claude Desktop") == true)
    }

    @Test func clineTimeoutAndTransportTypeAreMapped() throws {
        let (config, notices) = try Self.check("cline_mcp_settings.json")
        #expect(config.servers.map(\.id) == ["brave-search", "docs-sse", "tickets"])
        let search = try #require(config.server(id: "brave-search"))
        #expect(search.timeouts.toolCall == .seconds(120))
        #expect(search.transport.kindName == "stdio")
        let docs = try #require(config.server(id: "docs-sse"))
        #expect(
            docs.transport
                == .sse(url: "https://docs.example.com/sse", headers: ["Authorization": "Bearer 0000"], auth: .none)
        )
        #expect(docs.disabled)
        let tickets = try #require(config.server(id: "tickets"))
        #expect(
            tickets.transport
                == .http(url: "https://mcp.example.com/mcp", headers: [:], auth: .none, fallbackToSSE: false)
        )
        #expect(tickets.timeouts.toolCall == .seconds(30))
        #expect(
            notices.map(\.path) == [
                "mcpServers.brave-search.alwaysAllow", "mcpServers.brave-search.autoApprove",
                "mcpServers.docs-sse.autoApprove", "mcpServers.tickets.autoApprove",
            ]
        )
    }

    @Test func vsCodeServersAreReadAndItsPromptsFailOnlyTheirServer() throws {
        let (config, notices) = try Self.check("vscode_mcp.json", environment: ["GITHUB_TOKEN": "gh-token"])
        #expect(config.servers.map(\.id) == ["perplexity", "github", "fetch", "memory"])
        let github = try #require(config.server(id: "github"))
        #expect(
            github.transport
                == .http(
                    url: "https://api.githubcopilot.com/mcp/",
                    headers: ["Authorization": "Bearer gh-token"],
                    auth: .none,
                    fallbackToSSE: false
                )
        )
        #expect(github.configFailure == nil)
        #expect(config.server(id: "fetch")?.configFailure == nil)
        let perplexity = try #require(config.server(id: "perplexity")?.configFailure)
        #expect(perplexity.contains("${input:perplexity-key} is a VS Code input prompt"))
        #expect(perplexity.contains("mcpServers.perplexity.env.PERPLEXITY_API_KEY"))
        #expect(perplexity.contains("${PERPLEXITY_KEY}"))
        let memory = try #require(config.server(id: "memory")?.configFailure)
        #expect(memory.contains("${workspaceFolder} is the editor's open folder"))
        #expect(memory.contains("absolute path"))
        #expect(notices.map(\.path) == ["servers", "inputs", "mcpServers.fetch.envFile", "mcpServers.fetch.dev"])
    }

    @Test func vsCodeFileIsWrittenBackUnderServers() throws {
        let document = try ConfigLoader.loadDocument(path: Self.fixture("vscode_mcp.json"))
        #expect(document.serverIDs == ["perplexity", "github", "fetch", "memory"])
        let written = try ConfigDocument(parsing: document.serialized(), source: "written")
        #expect(written.writtenServersKey == "servers")
        #expect(String(decoding: document.serialized(), as: UTF8.self).contains(#""servers""#))
        #expect(!String(decoding: document.serialized(), as: UTF8.self).contains(#""mcpServers""#))
    }

    @Test func cursorEnvSyntaxAndUserHomeExpand() throws {
        let environment = ["HOME": "/home/me", "USERJOT_API_TOKEN": "uj-1"]
        let (config, notices) = try Self.check("cursor_mcp.json", environment: environment)
        #expect(config.servers.map(\.id) == ["linear", "userjot", "local-notes"])
        #expect(config.servers.allSatisfy { $0.configFailure == nil })
        let notes = try #require(config.server(id: "local-notes"))
        #expect(
            notes.transport
                == .stdio(
                    command: "node",
                    args: ["/home/me/mcp/notes/server.js"],
                    env: ["NOTES_DIR": "/home/me/notes"],
                    cwd: nil
                )
        )
        #expect(
            config.server(id: "userjot")?.transport
                == .http(
                    url: "https://api.userjot.com/v1/mcp",
                    headers: ["Authorization": "Bearer uj-1"],
                    auth: .none,
                    fallbackToSSE: true
                )
        )
        #expect(notices.map(\.path) == ["mcpServers.local-notes.envFile"])
    }

    @Test func windsurfServerUrlAndDisabledToolsAreMapped() throws {
        let (config, notices) = try Self.check("windsurf_mcp_config.json", environment: ["GITHUB_TOKEN": "t"])
        let github = try #require(config.server(id: "github"))
        #expect(github.toolFilter.deny == ["create_repository", "push_files"])
        #expect(!github.toolFilter.permits("push_files"))
        #expect(
            config.server(id: "figma")?.transport
                == .http(url: "https://mcp.figma.example.com/sse", headers: [:], auth: .none, fallbackToSSE: true)
        )
        #expect(notices.isEmpty)
    }

    @Test func claudeCodeProjectFileLoads() throws {
        let (config, notices) = try Self.check("claude_code_mcp.json", environment: ["API_KEY": "k"])
        #expect(config.servers.map(\.id) == ["api-server", "sentry", "local"])
        #expect(
            config.server(id: "api-server")?.transport
                == .http(
                    url: "https://api.example.com/mcp",
                    headers: ["Authorization": "Bearer k"],
                    auth: .none,
                    fallbackToSSE: false
                )
        )
        #expect(notices.isEmpty)
    }

    @Test func everyFixtureLoadsWithAnEmptyEnvironment() throws {
        for name in [
            "claude_desktop_config.json", "cline_mcp_settings.json", "vscode_mcp.json", "cursor_mcp.json",
            "windsurf_mcp_config.json", "claude_code_mcp.json",
        ] {
            #expect(throws: Never.self, "\(name)") { try Self.check(name) }
        }
    }
}
