import Testing

@testable import YrdenConfig

/// Every number a config states is range-checked where it is read, naming the field and the range, so that
/// nothing downstream does arithmetic on a value it cannot hold (`maxBodyBytes` = Int64.max crashed the
/// process on the first POST).
@Suite struct NumericRangeTests {
    @Test func maxBodyBytesBeyondOneGibibyteIsRefusedNamingTheRange() {
        let problems = Config.problems(#"{"gateway": {"maxBodyBytes": 9223372036854775807}}"#)
        #expect(problems.map(\.path) == ["gateway.maxBodyBytes"])
        #expect(problems.first?.message == "maxBodyBytes 9223372036854775807 is out of range (1 to 1073741824)")
        #expect(problems.first?.fix.contains("1 GiB") == true)
    }

    @Test func maxBodyBytesAtTheLimitIsAccepted() throws {
        #expect(try Config.decode(#"{"gateway": {"maxBodyBytes": 1073741824}}"#).gateway.maxBodyBytes == 1 << 30)
    }

    @Test func numbersTooLargeForAnIntegerAreOutOfRangeNotFractions() {
        for text in ["1e30", "18446744073709551616", "-1e300"] {
            let problems = Config.problems(#"{"gateway": {"maxSessions": \#(text)}}"#)
            #expect(problems.first?.message.contains("maxSessions") == true, "\(text)")
            #expect(problems.first?.message.contains("is out of range (1 to 1000000)") == true, "\(text)")
        }
    }

    @Test func maxAttemptsIsBounded() {
        let problems = Config.serverProblems(#"{"command": "x", "reconnect": {"maxAttempts": 1000001}}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.reconnect.maxAttempts"])
        #expect(problems.first?.message == "maxAttempts 1000001 is out of range (1 to 1000000)")
    }

    @Test func secondsBelowAMillisecondAreRefused() {
        let problems = Config.serverProblems(#"{"command": "x", "timeouts": {"request": 0.0000001}}"#)
        #expect(problems.map(\.path) == ["mcpServers.s.timeouts.request"])
        #expect(problems.first?.message.contains("request") == true)
        #expect(problems.first?.message.contains("0.001 to 31536000 seconds") == true)
    }

    @Test func secondsAtBothEndsAreAccepted() throws {
        let server = try #require(
            try Config.server(
                #"{"command": "x", "timeouts": {"connect": 0.001, "toolCall": 31536000}, "reconnect": {"initialDelay": 0.001}}"#
            )
        )
        #expect(server.timeouts.connect == .milliseconds(1))
        #expect(server.timeouts.toolCall == .seconds(31_536_000))
    }

    @Test func redirectPortNamesItsField() {
        let problems = Config.serverProblems(
            #"{"url": "http://h/mcp", "auth": {"type": "oauth", "redirectPort": 70000}}"#
        )
        #expect(problems.first?.message == "redirectPort 70000 is out of range (1 to 65535)")
    }
}
