import Testing

@testable import YrdenConfig

/// `"type": "websocket"`: a ws:// or wss:// URL, headers for the upgrade, and nothing a single shared connection
/// cannot carry.
@Suite struct WebSocketTransportConfigTests {
    @Test func aWebSocketServerKeepsItsURLAndHeaders() throws {
        let spec = try #require(
            try Config.server(
                #"{"type": "websocket", "url": "wss://mcp.example.com/ws?x=1", "headers": {"X-Api-Key": "k"}}"#
            )
        )
        #expect(
            spec.transport == .websocket(url: "wss://mcp.example.com/ws?x=1", headers: ["X-Api-Key": "k"], auth: .none)
        )
        #expect(spec.transport.kindName == "websocket")
    }

    @Test func anHTTPURLOnAWebSocketServerIsRefusedNamingTheURL() {
        let problems = Config.serverProblems(#"{"type": "websocket", "url": "http://127.0.0.1:1/ws"}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.url"])
        #expect(problems.first?.message.contains("not an absolute ws or wss URL") == true)
    }

    @Test func aWebSocketURLWithoutTheTypeIsRefused() {
        // A bare url is Streamable HTTP: ws:// there would be a typo for http://, or a missing type.
        let problems = Config.serverProblems(#"{"url": "ws://127.0.0.1:1/ws"}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.url"])
    }

    @Test(arguments: [
        #"{"type": "oauth", "perUser": true}"#, #"{"type": "forward"}"#,
        #"{"type": "tokenExchange", "tokenEndpoint": "https://as.example.com/token"}"#,
    ])
    func aCallersCredentialIsRefusedOnAWebSocketServer(auth: String) {
        let problems = Config.serverProblems(#"{"type": "websocket", "url": "ws://127.0.0.1:1/ws", "auth": \#(auth)}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.auth"])
        #expect(problems.first?.message.contains("headers of its upgrade only") == true)
    }

    @Test func theGatewaysOwnSignInIsAcceptedOnAWebSocketServer() throws {
        let spec = try #require(
            try Config.server(#"{"type": "websocket", "url": "wss://mcp.example.com/ws", "auth": {"type": "oauth"}}"#)
        )
        #expect(spec.transport == .websocket(url: "wss://mcp.example.com/ws", headers: [:], auth: .oauth(OAuthSpec())))
    }

    @Test func aCommandWithTheWebSocketTypeIsRefused() {
        let problems = Config.serverProblems(#"{"type": "websocket", "command": "server"}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.type"])
    }
}
