import Testing

@testable import YrdenConfig

/// `security.toolPinning`: the three modes, the default, and a wrong value named with its path and the words
/// that are allowed.
@Suite struct SecuritySettingsTests {
    @Test func pinningWarnsByDefault() throws {
        #expect(try Config.decode("{}").security.toolPinning == .warn)
        #expect(try Config.decode(#"{"security": {}}"#).security.toolPinning == .warn)
    }

    @Test(arguments: ToolPinningMode.allCases)
    func everyModeDecodes(_ mode: ToolPinningMode) throws {
        #expect(try Config.decode(#"{"security": {"toolPinning": "\#(mode.rawValue)"}}"#).security.toolPinning == mode)
    }

    @Test func anUnknownModeNamesTheFieldAndTheAllowedValues() throws {
        let problem = try #require(Config.problems(#"{"security": {"toolPinning": "strict"}}"#).first)
        #expect(problem.path == "security.toolPinning")
        #expect(problem.message == #"unknown tool pinning mode "strict""#)
        #expect(problem.fix.hasPrefix(#"write one of "off", "warn", "enforce""#))
    }

    @Test func aModeThatIsNotAStringIsAProblem() {
        #expect(Config.problems(#"{"security": {"toolPinning": true}}"#).map(\.path) == ["security.toolPinning"])
    }

    @Test func unknownKeysInTheSectionAreSuggestedTheirName() throws {
        let problem = try #require(Config.problems(#"{"security": {"toolPining": "warn"}}"#).first)
        #expect(problem.path == "security.toolPining")
        #expect(problem.fix.contains(#"did you mean "toolPinning"?"#))
    }

    @Test func theSectionMustBeAnObjectAndIsATopLevelKey() {
        #expect(Config.problems(#"{"security": "enforce"}"#).map(\.path) == ["security"])
        #expect(Config.problems(#"{"securty": {}}"#).first?.fix.contains(#""security""#) == true)
    }
}
