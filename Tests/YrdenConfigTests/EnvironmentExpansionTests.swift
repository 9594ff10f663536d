import Testing

@testable import YrdenConfig

@Suite struct EnvironmentExpansionTests {
    private func expand(_ text: String, _ environment: [String: String] = [:]) -> (String, [Finding]) {
        let result = EnvironmentExpansion.expand(text, environment: environment)
        return (result.text, result.findings)
    }

    @Test func substitutesSetVariables() {
        #expect(expand("Bearer ${TOKEN}", ["TOKEN": "abc"]).0 == "Bearer abc")
        #expect(expand("${A}${B}-${A}", ["A": "1", "B": "2"]).0 == "12-1")
        #expect(expand("${EMPTY}", ["EMPTY": ""]) == ("", []))
    }

    @Test func defaultsApplyWhenUnsetOrEmpty() {
        #expect(expand("${PORT:-8080}").0 == "8080")
        #expect(expand("${PORT:-8080}", ["PORT": ""]).0 == "8080")
        #expect(expand("${PORT:-8080}", ["PORT": "9"]).0 == "9")
        #expect(expand("${X:-}").0 == "")
        #expect(expand("${X:-a:-b}").0 == "a:-b")
    }

    @Test func doubleDollarIsALiteralDollar() {
        #expect(expand("price $$5 and $${HOME}", ["HOME": "/root"]).0 == "price $5 and ${HOME}")
        #expect(expand("$$$$").0 == "$$")
    }

    @Test func aLoneDollarStaysAsWritten() {
        #expect(expand("pa$word $HOME $").0 == "pa$word $HOME $")
    }

    @Test func unsetVariableIsAFindingThatNamesIt() {
        let (_, findings) = expand("Bearer ${SEARCH_TOKEN}")
        #expect(
            findings == [
                Finding(
                    message: "environment variable SEARCH_TOKEN is not set",
                    fix: "set it where the gateway runs and restart the gateway (it reads its environment once),"
                        + " or write ${SEARCH_TOKEN:-default}",
                    unresolvedReference: "SEARCH_TOKEN"
                )
            ]
        )
    }

    @Test(arguments: ["${}", "${1X}", "${A-b}", "${A B}", "${A:?x}"])
    func malformedReferencesAreFindings(_ text: String) {
        let (_, findings) = expand(text, ["A": "1"])
        #expect(findings.count == 1)
        #expect(findings.first?.message.contains("is not a valid environment reference") == true)
    }

    @Test func unterminatedReferenceIsAFinding() {
        let (_, findings) = expand("abc ${HOME")
        #expect(findings.first?.message == #"the "${" at character 5 has no closing "}""#)
    }

    @Test func problemsDoNotQuoteTheValueOrADefault() {
        let unterminated = expand("sk-live-SECRET ${HOME").1.first?.message ?? ""
        let badName = expand("sk-live-SECRET ${1X:-default-SECRET}").1.first?.message ?? ""
        #expect(!unterminated.contains("SECRET") && !badName.contains("SECRET"))
        #expect(badName.contains("${1X:-…}"))
    }

    @Test func everyStringValueExpandsButKeysDoNot() throws {
        let text = #"""
            {"mcpServers": {"s": {"command": "${BIN}", "args": ["--dir=${DIR:-/srv}", "$$1"],
                                  "env": {"${KEY}": "${VALUE}"}, "prefix": "${P}"}}}
            """#
        let config = try Config.decode(text, environment: ["BIN": "/bin/srv", "KEY": "K", "VALUE": "v", "P": "pre"])
        let server = try #require(config.servers.first)
        let expected = TransportSpec.stdio(
            command: "/bin/srv",
            args: ["--dir=/srv", "$1"],
            env: ["${KEY}": "v"],
            cwd: nil
        )
        #expect(server.transport == expected)
        #expect(server.prefix == "pre")
    }

    @Test func everyUnsetVariableIsNamedAtItsPath() throws {
        let config = try Config.decode(
            #"{"mcpServers": {"a": {"command": "x", "args": ["${ONE}", "ok", "${TWO}"]}, "b": {"url": "${THREE}"}}}"#
        )
        let unresolved = config.servers.flatMap(\.unresolved)
        #expect(unresolved.map(\.path) == ["mcpServers.a.args[0]", "mcpServers.a.args[2]", "mcpServers.b.url"])
        #expect(
            unresolved.map(\.message) == [
                "environment variable ONE is not set",
                "environment variable TWO is not set",
                "environment variable THREE is not set",
            ]
        )
    }

    @Test func anAdminTokenWrittenEmptyMeansNone() throws {
        let literal = try Config.decode(#"{"gateway": {"adminToken": ""}}"#)
        #expect(literal.gateway.adminToken == nil)
    }
}
