import Testing

@testable import YrdenConfig

/// Each rule yields a problem at the path of the offending value, with a message that quotes it.
@Suite struct ValidationRuleTests {
    private func only(_ problems: [ConfigProblem]) -> ConfigProblem? {
        problems.count == 1 ? problems[0] : nil
    }

    @Test func manyProblemsAreCollectedAtOnce() {
        let text = #"""
            {
              "gateway": {"listen": "nowhere", "maxBodyBytes": 0, "toolSeparator": ""},
              "mcpServers": {
                "Bad": {"command": "x"},
                "ok": {"command": "x", "timeouts": {"connect": -1}, "reconnect": "sometimes"},
                "remote": {"url": "ftp://x.example", "args": ["a"]},
                "both": {"command": "x", "url": "https://y.example", "tools": {"allow": [1]}}
              },
              "extra": true
            }
            """#
        let problems = Config.problems(text)
        #expect(
            problems.map(\.path) == [
                "extra",
                "gateway.listen",
                "gateway.toolSeparator",
                "gateway.maxBodyBytes",
                "mcpServers.Bad",
                "mcpServers.ok.timeouts.connect",
                "mcpServers.ok.reconnect",
                "mcpServers.remote.url",
                "mcpServers.remote.args",
                "mcpServers.both",
                "mcpServers.both.tools.allow[0]",
            ]
        )
    }

    @Test func typeContradictingTheFields() {
        let stdio = only(Config.serverProblems(#"{"url": "https://a.example/mcp", "type": "stdio"}"#))
        #expect(stdio?.path == "mcpServers.s.type")
        #expect(stdio?.message == #""type": "stdio" needs "command", but the server has "url""#)
        let sse = only(Config.serverProblems(#"{"command": "srv", "type": "sse"}"#))
        #expect(sse?.message == #""type": "sse" needs "url", but the server has "command""#)
    }

    @Test func unknownTypeSuggestsTheNearestOne() {
        let problem = only(Config.serverProblems(#"{"url": "https://a.example", "type": "ssse"}"#))
        #expect(problem?.path == "mcpServers.s.type")
        #expect(problem?.message == #"unknown transport type "ssse""#)
        #expect(problem?.fix.hasPrefix(#"did you mean "sse"?"#) == true)
    }

    @Test func fieldsOfTheOtherTransportAreProblems() {
        let remote = Config.serverProblems(#"{"url": "https://a.example", "env": {"A": "b"}, "cwd": "/tmp"}"#)
        #expect(remote.map(\.path) == ["mcpServers.s.env", "mcpServers.s.cwd"])
        #expect(remote.first?.message == #""env" applies only to stdio servers, and this one connects to "url""#)
        let local = Config.serverProblems(#"{"command": "x", "headers": {"A": "b"}, "auth": {"type": "none"}}"#)
        #expect(local.map(\.path) == ["mcpServers.s.headers", "mcpServers.s.auth"])
    }

    @Test(arguments: [
        "example.com/mcp", "ftp://example.com", "https://", "https:///path", "http://host:99999/",
        "https://a b.example",
    ])
    func urlsMustBeAbsoluteHTTP(_ url: String) {
        let problem = only(Config.serverProblems(#"{"url": "\#(url)"}"#))
        #expect(problem?.path == "mcpServers.s.url")
        #expect(problem?.message.contains(url.quoted) == true)
    }

    @Test(arguments: ["http://localhost", "https://[::1]:8443/mcp", "HTTPS://user:pw@h.example/x?y#z"])
    func validURLsPass(_ url: String) {
        #expect(Config.serverProblems(#"{"url": "\#(url)"}"#).isEmpty)
    }

    @Test func idsAndPrefixes() throws {
        #expect(Config.problems(#"{"mcpServers": {"a-1_b": {"command": "x"}}}"#).isEmpty)
        let long = String(repeating: "a", count: 64)
        let tooLong = Config.problems(#"{"mcpServers": {"\#(long)": {"command": "x"}}}"#)
        #expect(tooLong.map(\.path) == ["mcpServers.\(long)"])
        #expect(Config.problems(#"{"mcpServers": {"-a": {"command": "x"}}}"#).count == 1)
        // Hosts reject "." in tool names, so a prefix may not carry one.
        let dotted = only(Config.serverProblems(#"{"command": "x", "prefix": "gh.v2"}"#))
        #expect(dotted?.path == "mcpServers.s.prefix")
        #expect(dotted?.fix.contains(#""gh-v2""#) == true)
        let badPrefix = only(Config.serverProblems(#"{"command": "x", "prefix": "Git Hub"}"#))
        #expect(badPrefix?.path == "mcpServers.s.prefix")
        let sepPrefix = only(Config.serverProblems(#"{"command": "x", "prefix": "a__b"}"#))
        #expect(sepPrefix?.message == #"prefix "a__b" contains the tool separator "__""#)
    }

    @Test func theSeparatorRuleFollowsTheConfiguredSeparator() throws {
        let config = try Config.decode(
            #"{"gateway": {"toolSeparator": "_x_"}, "mcpServers": {"a__b": {"command": "x"}}}"#
        )
        #expect(config.gateway.toolSeparator == "_x_")
        let dotted = only(Config.problems(#"{"gateway": {"toolSeparator": "."}}"#))
        #expect(dotted?.path == "gateway.toolSeparator")
        let problems = Config.problems(#"{"gateway": {"toolSeparator": "-"}, "mcpServers": {"a-b": {"command": "x"}}}"#)
        #expect(problems.map(\.path) == ["mcpServers.a-b"])
    }

    @Test func duplicatePrefixesCollide() {
        let text = #"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y", "prefix": "a"}}}"#
        let problem = only(Config.problems(text))
        #expect(problem?.path == "mcpServers.b.prefix")
        #expect(problem?.message == #"prefix "a" is also used by server "a""#)
    }

    @Test func duplicateKeysAreProblems() {
        let problems = Config.problems(#"{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}"#)
        #expect(problems.map(\.message) == [#"duplicate key "a""#])
        let inner = Config.serverProblems(#"{"command": "x", "command": "y"}"#)
        #expect(inner.map(\.path) == ["mcpServers.s.command"])
    }

    @Test func commandWithSpacesIsSplitForTheOperator() {
        let problem = only(Config.serverProblems(#"{"command": "npx -y @acme/server"}"#))
        #expect(
            problem?.fix
                == #"put the program in "command" and the rest in "args": "command": "npx", "#
                + #""args": ["-y", "@acme/server"]"#
        )
        #expect(Config.serverProblems(#"{"command": "/Applications/My App/bin/server"}"#).isEmpty)
    }

    @Test func headersAreCheckedBeforeTheyReachTheWire() {
        let injected = Config.serverProblems(
            #"{"url": "https://a.example", "headers": {"X-Key": "${K}"}}"#,
            environment: ["K": "v\r\nX-Evil: 1"]
        )
        #expect(injected.map(\.path) == ["mcpServers.s.headers.X-Key"])
        let badName = Config.serverProblems(#"{"url": "https://a.example", "headers": {"Bad Name": "v"}}"#)
        #expect(badName.map(\.path) == [#"mcpServers.s.headers["Bad Name"]"#])
        let twice = Config.serverProblems(#"{"url": "https://a.example", "headers": {"A": "1", "a": "2"}}"#)
        #expect(twice.map(\.path) == ["mcpServers.s.headers.a"])
    }

    @Test func authRules() throws {
        #expect(
            Config.serverProblems(#"{"url": "https://a.example", "auth": {}}"#).map(\.message) == [
                #""auth" has no "type""#
            ]
        )
        let none = Config.serverProblems(#"{"url": "https://a.example", "auth": {"type": "none", "scopes": []}}"#)
        #expect(none.map(\.path) == ["mcpServers.s.auth.scopes"])
        let secretOnly = Config.serverProblems(
            #"{"url": "https://a.example", "auth": {"type": "oauth", "clientSecret": "s"}}"#
        )
        #expect(secretOnly.map(\.path) == ["mcpServers.s.auth.clientSecret"])
        let oauth2 = Config.serverProblems(#"{"url": "https://a.example", "auth": {"type": "oauth2"}}"#)
        #expect(oauth2.first?.fix.hasPrefix(#"did you mean "oauth"?"#) == true)
        let scope = Config.serverProblems(
            #"{"url": "https://a.example", "auth": {"type": "oauth", "scopes": ["a b"]}}"#
        )
        #expect(scope.map(\.path) == ["mcpServers.s.auth.scopes[0]"])
        let conflict = Config.serverProblems(
            #"{"url": "https://a.example", "headers": {"Authorization": "x"}, "auth": {"type": "oauth"}}"#
        )
        #expect(conflict.map(\.path) == ["mcpServers.s.headers"])
        let none2 = try Config.server(#"{"url": "https://a.example", "auth": {"type": "none"}}"#)
        #expect(none2?.transport == .http(url: "https://a.example", headers: [:], auth: .none, fallbackToSSE: true))
    }

    @Test func rootMustBeAnObject() {
        let problem = only(Config.problems("[1, 2]"))
        #expect(problem?.path == "")
        #expect(problem?.message == "the configuration must be a JSON object, found an array")
    }

    /// A combining mark (here an emoji modifier) right after `://`, `@` or `[` joins it into one character;
    /// the URL rule reads scalars, so the delimiters are still seen.
    @Test func combiningMarksDoNotHideURLDelimiters() throws {
        #expect(try Config.server("{\"url\": \"hTTPs://\u{1F3FB}@[\u{11A}]\"}") != nil)
        #expect(try Config.server("{\"url\": \"https://\u{301}example.com:8443/mcp\"}") != nil)
        let badPort = Config.serverProblems("{\"url\": \"https://\u{1F3FB}@[::1]:8\u{301}0\"}")
        #expect(badPort.map(\.message).first?.contains("invalid port") == true)
    }

    @Test func nullReadsAsAbsent() throws {
        let server = try Config.server(#"{"command": "x", "url": null, "reconnect": {"maxAttempts": null}}"#)
        #expect(server?.reconnect == .default)
    }
}

@Suite struct SecretHandlingTests {
    @Test func problemsQuoteURLsAsWrittenNotAsExpanded() {
        let problems = Config.serverProblems(#"{"url": "example.com/mcp?key=${KEY}"}"#, environment: ["KEY": "s3cret"])
        #expect(problems.map(\.message) == [#""example.com/mcp?key=${KEY}" is not an absolute http or https URL"#])
        #expect(!problems.description.contains("s3cret"))
    }
}
