import Testing

@testable import YrdenConfig

/// Golden strings for the problems operators meet most: the whole line as `check-config` prints it.
@Suite struct ProblemMessageTests {
    private func lines(_ text: String, environment: [String: String] = [:]) -> [String] {
        do {
            _ = try Config.decode(text, environment: environment)
            return []
        } catch {
            return error.description.split(separator: "\n").map(String.init)
        }
    }

    /// The misspelt key is the one problem: "has neither command nor url" would only repeat it.
    @Test func unknownKeyWithSuggestion() {
        #expect(
            lines(#"{"mcpServers": {"time": {"comand": "python3"}}}"#) == [
                #"test.json: mcpServers.time.comand: unknown key "comand" — did you mean "command"? "#
                    + "Known keys here: "
                    + "command, args, env, cwd, url, headers, auth, type, prefix, tools, timeouts, reconnect, protocol, disabled"
            ]
        )
    }

    @Test func unknownKeyWithoutSuggestion() {
        #expect(
            lines(#"{"gateway": {"colour": "blue"}}"#) == [
                #"test.json: gateway.colour: unknown key "colour" — remove it; known keys here: listen, "#
                    + "toolSeparator, adminToken, clientTokens, allowedOrigins, trustedProxies, maxBodyBytes, dataDir, "
                    + "publicURL, replicaURL, oauthCallback, maxSessions, maxSessionsPerClient, sessionIdleTimeout, "
                    + "startupWait, console, appsListen, auth, webSocketPingInterval, webSocketPongTimeout"
            ]
        )
    }

    @Test func keyNamesFromOtherHostsPointAtOurs() {
        let problems = Config.serverProblems(#"{"endpoint": "https://x.example/mcp"}"#)
        #expect(problems.first?.fix.hasPrefix(#"did you mean "url"?"#) == true)
    }

    @Test func badServerID() {
        #expect(
            lines(#"{"mcpServers": {"My Server": {"command": "x"}}}"#) == [
                #"test.json: mcpServers["My Server"]: server id "My Server" is not valid — use 1 to 63 lowercase "#
                    + #"letters, digits, "_" or "-", starting with a letter or digit (for example "my-server")"#
            ]
        )
    }

    @Test func serverIDContainingTheSeparator() {
        #expect(
            lines(#"{"mcpServers": {"my__srv": {"command": "x"}}}"#) == [
                #"test.json: mcpServers.my__srv: server id "my__srv" contains the tool separator "__" — tools are "#
                    + "exposed as <prefix>__<tool> and the prefix defaults to the id, so the name could not be split"
                    + #" back unambiguously; rename the server (for example "my-srv") or choose another"#
                    + " gateway.toolSeparator"
            ]
        )
    }

    @Test func neitherCommandNorURL() {
        #expect(
            lines(#"{"mcpServers": {"x": {"args": ["a"]}}}"#) == [
                #"test.json: mcpServers.x: server has neither "command" nor "url" — add "command" to launch a "#
                    + #"local stdio server, or "url" to reach a remote one"#
            ]
        )
    }

    @Test func bothCommandAndURL() {
        #expect(
            lines(#"{"mcpServers": {"x": {"command": "a", "url": "https://b.example"}}}"#) == [
                #"test.json: mcpServers.x: server has both "command" and "url" — keep "command" to launch a local "#
                    + #"stdio server, or "url" to reach a remote one, not both"#
            ]
        )
    }

    @Test func badListen() {
        #expect(
            lines(#"{"gateway": {"listen": "localhost"}}"#) == [
                #"test.json: gateway.listen: "localhost" is not HOST:PORT — write it as HOST:PORT, e.g. "#
                    + "127.0.0.1:8750 or [::1]:8750"
            ]
        )
        #expect(
            lines(#"{"gateway": {"listen": "127.0.0.1:70000"}}"#) == [
                "test.json: gateway.listen: port 70000 is out of range — use a port from 0 to 65535"
                    + " (0 picks a free one)"
            ]
        )
    }

    @Test func nonLoopbackWithoutToken() {
        #expect(
            lines(#"{"gateway": {"listen": "0.0.0.0:8750"}}"#) == [
                "test.json: gateway.listen: binding 0.0.0.0 exposes the admin API — set gateway.adminToken"
                    + " (or YRDEN_ADMIN_TOKEN), or listen on 127.0.0.1"
            ]
        )
    }

    @Test func wrongTypeNamesExpectedAndFound() {
        let problems = Config.serverProblems(#"{"command": "x", "args": "-m srv", "disabled": "yes"}"#)
        #expect(
            problems.map(\.description) == [
                #"mcpServers.s.args: expected an array, found a string — replace it with an array"#,
                #"mcpServers.s.disabled: expected true or false, found a string — replace it with true or false"#,
            ]
        )
        let port = Config.serverProblems(
            #"{"url": "https://a.example", "auth": {"type": "oauth", "redirectPort": "${P}"}}"#
        )
        #expect(
            port.map(\.description) == [
                "mcpServers.s.auth.redirectPort: expected a number, found a string — write the number without quotes"
                    + " (${VAR} expands only inside strings)"
            ]
        )
    }

    @Test func parseErrorHasLineAndColumn() {
        #expect(
            lines("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}") == [
                "test.json: invalid JSON at line 3, column 26: expected a key — correct the syntax there (JSON allows"
                    + " no comments, trailing commas or single-quoted strings)"
            ]
        )
    }
}
