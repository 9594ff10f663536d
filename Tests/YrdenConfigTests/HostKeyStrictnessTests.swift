import Testing

@testable import YrdenConfig

/// Accepting hosts' keys does not loosen Yrden's own: typos are still errors with a suggestion, and a host
/// key that contradicts the Yrden key it maps onto is a problem rather than a silent choice.
@Suite struct HostKeyStrictnessTests {
    @Test func aTypoInAYrdenKeyIsStillAnErrorWithASuggestion() {
        let problems = Config.serverProblems(#"{"command": "x", "timeuots": {"connect": 5}}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.timeuots"])
        #expect(problems.first?.fix.hasPrefix(#"did you mean "timeouts"?"#) == true)
    }

    @Test func anUnknownTopLevelKeyIsStillAnError() {
        #expect(Config.problems(#"{"mcpServers": {}, "shortcut": "x"}"#).map(\.path) == ["shortcut"])
    }

    @Test func clineTimeoutBesideToolCallIsAProblem() {
        let problems = Config.serverProblems(#"{"command": "x", "timeout": 60, "timeouts": {"toolCall": 30}}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.timeout"])
    }

    @Test func clineTimeoutIsRangeChecked() {
        let problems = Config.serverProblems(#"{"command": "x", "timeout": 0}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.timeout"])
        #expect(problems.first?.message.contains("out of range") == true)
    }

    @Test func transportTypeBesideTypeIsAProblem() {
        let problems = Config.serverProblems(#"{"url": "http://h/mcp", "type": "http", "transportType": "sse"}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.transportType"])
    }

    @Test func transportTypeIsCheckedLikeType() {
        let problems = Config.serverProblems(#"{"command": "x", "transportType": "sse"}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.transportType"])
        #expect(problems.first?.message.contains("needs \"url\"") == true)
    }

    @Test func serverUrlBesideUrlIsAProblem() {
        let problems = Config.serverProblems(#"{"url": "http://a/mcp", "serverUrl": "http://b/mcp"}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.serverUrl"])
    }

    @Test func serversBesideMcpServersIsAProblem() {
        let problems = Config.problems(#"{"mcpServers": {}, "servers": {"a": {"command": "x"}}}"#)
        #expect(problems.map(\.path) == ["servers"])
    }

    @Test func ignoredHostKeysAreNoticesNotProblems() throws {
        let document = try ConfigDocument(
            parsing: Array(#"{"mcpServers": {"s": {"command": "x", "autoApprove": ["t"]}}}"#.utf8),
            source: "test.json"
        )
        let (config, notices) = try document.checked(environment: [:], source: "test.json")
        #expect(config.servers.map(\.id) == ["s"])
        #expect(notices.map(\.path) == ["mcpServers.s.autoApprove"])
    }
}
