import Testing

@testable import YrdenConfig

@Suite struct ServerPolicyTests {
    @Test func toolFilterSemantics() {
        let everything = ToolFilter()
        #expect(everything.permits("anything"))
        let denyOnly = ToolFilter(deny: ["rm"])
        #expect(denyOnly.permits("ls"))
        #expect(!denyOnly.permits("rm"))
        let allowOnly = ToolFilter(allow: ["ls", "cat"])
        #expect(allowOnly.permits("ls"))
        #expect(!allowOnly.permits("rm"))
        let both = ToolFilter(allow: ["ls", "cat"], deny: ["cat"])
        #expect(both.permits("ls"))
        #expect(!both.permits("cat"))
        #expect(!ToolFilter(allow: []).permits("ls"))
    }

    @Test func toolFilterDecodes() throws {
        let server = try Config.server(#"{"command": "x", "tools": {"allow": ["a", "b"], "deny": ["c"]}}"#)
        #expect(server?.toolFilter == ToolFilter(allow: ["a", "b"], deny: ["c"]))
        let denyOnly = try Config.server(#"{"command": "x", "tools": {"deny": ["c"]}}"#)
        #expect(denyOnly?.toolFilter.allow == nil)
    }

    @Test func toolFilterProblems() {
        let both = Config.serverProblems(#"{"command": "x", "tools": {"allow": ["a"], "deny": ["a"]}}"#)
        #expect(both.map(\.path) == ["mcpServers.s.tools.deny[0]"])
        let typo = Config.serverProblems(#"{"command": "x", "tools": {"alow": ["a"]}}"#)
        #expect(typo.first?.fix.hasPrefix(#"did you mean "allow"?"#) == true)
    }

    @Test func defaults() throws {
        let server = try #require(try Config.server(#"{"command": "x"}"#))
        #expect(server.prefix == "s")
        #expect(server.toolFilter == ToolFilter())
        #expect(server.timeouts == Timeouts(connect: .seconds(10), request: .seconds(60), toolCall: .seconds(300)))
        #expect(server.timeouts.discover == .seconds(5))
        #expect(server.protocolEra == .auto)
        #expect(server.reconnect == .backoff(initialDelay: .seconds(1), maxDelay: .seconds(60), maxAttempts: nil))
        #expect(!server.disabled)
    }

    @Test func timeoutsOverrideOnlyWhatTheyName() throws {
        let server = try Config.server(#"{"command": "x", "timeouts": {"connect": 2.5, "toolCall": 900}}"#)
        let expected = Timeouts(connect: .milliseconds(2500), request: .seconds(60), toolCall: .seconds(900))
        #expect(server?.timeouts == expected)
    }

    @Test(arguments: ["0", "-1", "\"10\"", "1e12"])
    func timeoutsMustBePositiveNumbers(_ value: String) {
        let problems = Config.serverProblems(#"{"command": "x", "timeouts": {"request": \#(value)}}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.timeouts.request"])
    }

    @Test func reconnectNeverAndBackoff() throws {
        #expect(try Config.server(#"{"command": "x", "reconnect": "never"}"#)?.reconnect == .never)
        let custom = try Config.server(#"{"command": "x", "reconnect": {"initialDelay": 0.5, "maxAttempts": 5}}"#)
        #expect(custom?.reconnect == .backoff(initialDelay: .milliseconds(500), maxDelay: .seconds(60), maxAttempts: 5))
    }

    @Test func reconnectProblems() {
        let inverted = Config.serverProblems(#"{"command": "x", "reconnect": {"initialDelay": 120}}"#)
        #expect(
            inverted.map(\.description) == [
                "mcpServers.s.reconnect.initialDelay: maxDelay (60 s) is shorter than initialDelay (120 s)"
                    + " — make maxDelay at least as long as initialDelay"
            ]
        )
        let zero = Config.serverProblems(#"{"command": "x", "reconnect": {"maxAttempts": 0}}"#)
        #expect(zero.map(\.path) == ["mcpServers.s.reconnect.maxAttempts"])
        #expect(zero.first?.fix.contains(#""reconnect": "never""#) == true)
        let word = Config.serverProblems(#"{"command": "x", "reconnect": "always"}"#)
        #expect(word.map(\.message) == [#"unknown reconnect policy "always""#])
        let number = Config.serverProblems(#"{"command": "x", "reconnect": 3}"#)
        #expect(number.map(\.message) == [#"expected "never" or an object, found a number"#])
    }

    @Test func disabledServersStayInTheConfig() throws {
        let config = try Config.decode(#"{"mcpServers": {"a": {"command": "x", "disabled": true}}}"#)
        #expect(config.servers.map(\.disabled) == [true])
    }

    @Test func transportFollowsTheFieldsUnlessPinned() throws {
        let inferred = try Config.server(#"{"url": "https://a.example/mcp"}"#)
        let url = "https://a.example/mcp"
        #expect(inferred?.transport == .http(url: url, headers: [:], auth: .none, fallbackToSSE: true))
        for type in ["http", "streamable-http", "streamableHttp"] {
            let pinned = try Config.server(#"{"url": "https://a.example/mcp", "type": "\#(type)"}"#)
            #expect(pinned?.transport == .http(url: url, headers: [:], auth: .none, fallbackToSSE: false))
        }
        let stdio = try Config.server(#"{"command": "srv", "type": "stdio"}"#)
        #expect(stdio?.transport.kindName == "stdio")
    }

    @Test func protocolPinsAndTheDiscoverTimeoutDecode() throws {
        let modern = try Config.server(#"{"url": "http://127.0.0.1:1/mcp", "protocol": "2026-07-28"}"#)
        #expect(modern?.protocolEra == .modern)
        let handshake = try Config.server(#"{"command": "x", "protocol": "2025-11-25", "timeouts": {"discover": 2}}"#)
        #expect(handshake?.protocolEra == .handshake)
        #expect(handshake?.timeouts.discover == .seconds(2))
    }

    @Test func anUnknownProtocolNamesTheChoices() {
        let problems = Config.serverProblems(#"{"command": "x", "protocol": "2026"}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.protocol"])
        #expect(problems.first?.fix.contains(#""auto", "2026-07-28", "2025-11-25""#) == true)
    }

    @Test func theLegacySSETransportCannotBePinnedModern() {
        let problems = Config.serverProblems(
            #"{"url": "http://127.0.0.1:1/sse", "type": "sse", "protocol": "2026-07-28"}"#
        )
        #expect(problems.map(\.path) == ["mcpServers.s.protocol"])
    }
}
