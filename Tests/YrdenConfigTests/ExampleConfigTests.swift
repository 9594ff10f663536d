import Testing

@testable import YrdenConfig

@Suite struct ExampleConfigTests {
    @Test func embeddedDefaultRunsTheDemoServer() throws {
        let config = try ConfigLoader.decode(
            Array(GatewayConfig.embeddedDefaultJSON.utf8),
            source: "embedded default",
            environment: ["YRDEN_EXECUTABLE": "/usr/local/bin/yrden"]
        )
        #expect(config.gateway == GatewaySettings())
        #expect(config.gateway.listenAddress == "127.0.0.1:8750")
        #expect(
            config.servers == [
                ServerSpec(
                    id: "demo",
                    transport: .stdio(command: "/usr/local/bin/yrden", args: ["demo-server"], env: [:], cwd: nil)
                )
            ]
        )
    }

    @Test func embeddedDefaultNamesTheMissingVariable() throws {
        let demo = try #require(try Config.decode(GatewayConfig.embeddedDefaultJSON).server(id: "demo"))
        #expect(demo.unresolved.map(\.path) == ["mcpServers.demo.command"])
        #expect(demo.unresolved.first?.message == "environment variable YRDEN_EXECUTABLE is not set")
    }

    static let fullExample = """
        {
          "gateway": { "listen": "127.0.0.1:8750", "toolSeparator": "__", "adminToken": "${YRDEN_ADMIN_TOKEN}",
                       "allowedOrigins": ["http://localhost:3000"], "maxBodyBytes": 16777216,
                       "dataDir": "/var/lib/yrden", "publicURL": "https://gw.example.com" },
          "mcpServers": {
            "time":   { "command": "python3", "args": ["-m", "mcp_server_time"], "env": { "TZ": "UTC" },
                        "cwd": "/tmp" },
            "search": { "url": "https://example.com/mcp",
                        "headers": { "Authorization": "Bearer ${SEARCH_TOKEN}" } },
            "tasks":  { "url": "https://tasks.example.com/mcp",
                        "auth": { "type": "oauth", "scopes": ["tasks:read"], "clientId": "x", "clientSecret": "${S}",
                                  "redirectPort": 8751 } },
            "legacy": { "url": "http://127.0.0.1:9000/sse", "type": "sse" }
          }
        }
        """

    @Test func fullExampleDecodesToTheExpectedIR() throws {
        let config = try Config.decode(
            Self.fullExample,
            environment: ["YRDEN_ADMIN_TOKEN": "admin-secret", "SEARCH_TOKEN": "tok", "S": "client-secret"]
        )
        let expectedGateway = GatewaySettings(
            listenHost: "127.0.0.1",
            listenPort: 8750,
            toolSeparator: "__",
            adminToken: "admin-secret",
            allowedOrigins: ["http://localhost:3000"],
            maxBodyBytes: 16_777_216,
            dataDir: "/var/lib/yrden",
            publicURL: "https://gw.example.com"
        )
        #expect(config.gateway == expectedGateway)
        #expect(config.gateway.isLoopback)
        let oauth = OAuthSpec(scopes: ["tasks:read"], clientId: "x", clientSecret: "client-secret", redirectPort: 8751)
        let expectedServers = [
            ServerSpec(
                id: "time",
                transport: .stdio(command: "python3", args: ["-m", "mcp_server_time"], env: ["TZ": "UTC"], cwd: "/tmp")
            ),
            ServerSpec(
                id: "search",
                transport: .http(
                    url: "https://example.com/mcp",
                    headers: ["Authorization": "Bearer tok"],
                    auth: .none,
                    fallbackToSSE: true
                )
            ),
            ServerSpec(
                id: "tasks",
                transport: .http(
                    url: "https://tasks.example.com/mcp",
                    headers: [:],
                    auth: .oauth(oauth),
                    fallbackToSSE: true
                )
            ),
            ServerSpec(id: "legacy", transport: .sse(url: "http://127.0.0.1:9000/sse", headers: [:], auth: .none)),
        ]
        #expect(config.servers == expectedServers)
        #expect(config.servers.map(\.transport.kindName) == ["stdio", "http", "http", "sse"])
        #expect(config.servers.map(\.prefix) == ["time", "search", "tasks", "legacy"])
    }

    /// The example in DESIGN.md §1, verbatim: it must work with the secrets it references set.
    @Test func designDocumentExampleDecodes() throws {
        let text = """
            {
              "gateway": { "listen": "127.0.0.1:8750", "toolSeparator": "__",
                           "adminToken": "${YRDEN_ADMIN_TOKEN}" },
              "mcpServers": {
                "time":    { "command": "python3", "args": ["-m", "mcp_server_time"],
                             "env": { "TZ": "UTC" } },
                "search":  { "url": "https://example.com/mcp",
                             "headers": { "Authorization": "Bearer ${SEARCH_TOKEN}" } },
                "tasks":   { "url": "https://tasks.example.com/mcp",
                             "auth": { "type": "oauth", "scopes": ["tasks:read"] } },
                "legacy":  { "url": "http://127.0.0.1:9000/sse", "type": "sse" }
              }
            }
            """
        let config = try Config.decode(text, environment: ["SEARCH_TOKEN": "t", "YRDEN_ADMIN_TOKEN": "a"])
        #expect(config.gateway.adminToken == "a")
        #expect(config.servers.map(\.id) == ["time", "search", "tasks", "legacy"])
        #expect(
            config.server(id: "tasks")?.transport
                == .http(
                    url: "https://tasks.example.com/mcp",
                    headers: [:],
                    auth: .oauth(OAuthSpec(scopes: ["tasks:read"])),
                    fallbackToSSE: true
                )
        )
    }

    @Test func emptyDocumentIsAPrivateGatewayWithNoServers() throws {
        let config = try Config.decode("{}")
        #expect(config == GatewayConfig())
        #expect(config.gateway.maxBodyBytes == 16 * 1024 * 1024)
    }

    @Test func serversKeepDocumentOrder() throws {
        let config = try Config.decode(#"{"mcpServers": {"zeta": {"command": "z"}, "alpha": {"command": "a"}}}"#)
        #expect(config.servers.map(\.id) == ["zeta", "alpha"])
    }
}
