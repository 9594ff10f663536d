import Testing

@testable import YrdenConfig

/// A token that cannot be resolved, or that comes out empty, is a problem wherever tokens are written: read as
/// "no token" it would leave the admin API, `/mcp` or a profile open.
@Suite struct TokenRuleTests {
    private func paths(_ text: String, _ environment: [String: String] = [:]) -> [String] {
        Config.problems(text, environment: environment).map(\.path)
    }

    @Test func anUnsetVariableInTheAdminTokenIsAProblemNamingIt() throws {
        let problem = try #require(Config.problems(#"{"gateway": {"adminToken": "${NOPE}"}}"#).first)
        #expect(problem.path == "gateway.adminToken")
        #expect(problem.message == "environment variable NOPE is not set")
    }

    @Test func anUnsetVariableInAClientTokenIsAProblemNamingIt() throws {
        let problems = Config.problems(#"{"gateway": {"clientTokens": ["ok", "${NOPE}"]}}"#)
        #expect(problems.map(\.path) == ["gateway.clientTokens[1]"])
        #expect(problems.first?.message == "environment variable NOPE is not set")
    }

    @Test func anUnsetVariableInAProfilesTokenIsAProblemNotTheGatewaysTokens() throws {
        let text = #"{"gateway": {"clientTokens": ["g"]}, "profiles": {"p": {"clientTokens": ["${NOPE}"]}}}"#
        let problems = Config.problems(text)
        #expect(problems.map(\.path) == ["profiles.p.clientTokens[0]"])
        #expect(problems.first?.message == "environment variable NOPE is not set")
    }

    @Test func tokensThatComeOutEmptyAreProblems() {
        #expect(
            paths(#"{"gateway": {"clientTokens": ["", ""]}}"#) == [
                "gateway.clientTokens[0]", "gateway.clientTokens[1]",
            ]
        )
        #expect(paths(#"{"profiles": {"p": {"clientTokens": [""]}}}"#) == ["profiles.p.clientTokens[0]"])
        #expect(paths(#"{"gateway": {"adminToken": "${EMPTY}"}}"#, ["EMPTY": ""]) == ["gateway.adminToken"])
        #expect(paths(#"{"gateway": {"adminToken": "${NOPE:-}"}}"#) == ["gateway.adminToken"])
        #expect(paths(#"{"gateway": {"clientTokens": ["${EMPTY}"]}}"#, ["EMPTY": ""]) == ["gateway.clientTokens[0]"])
    }

    @Test func anEmptyTokenProblemQuotesOnlyWhatWasWritten() throws {
        let problem = try #require(
            Config.problems(#"{"gateway": {"adminToken": "${EMPTY}"}}"#, environment: ["EMPTY": ""]).first
        )
        #expect(problem.message == #"the admin token "${EMPTY}" expands to an empty token"#)
    }

    @Test func noTokensAtAllIsStillAllowedAsWritten() throws {
        let config = try Config.decode(#"{"gateway": {"adminToken": "", "clientTokens": []}, "profiles": {"p": {}}}"#)
        #expect(config.gateway.adminToken == nil && config.gateway.clientTokens.isEmpty)
        #expect(config.profiles.first?.clientTokens.isEmpty == true)
    }
}
