import Testing
import YrdenProtocol

@testable import YrdenConfig

/// `profiles`: what a valid one becomes, and the message, path and fix of each mistake an operator can make.
@Suite struct ProfileConfigTests {
    private static let servers = #""mcpServers": {"git": {"command": "g"}, "fs": {"command": "f"}}"#

    private func decode(_ profiles: String) throws -> GatewayConfig {
        try Config.decode(#"{\#(Self.servers), "profiles": \#(profiles)}"#)
    }

    private func problems(_ profiles: String) -> [ConfigProblem] {
        Config.problems(#"{\#(Self.servers), "profiles": \#(profiles)}"#)
    }

    @Test func aFullProfileIsRead() throws {
        let config = try decode(
            #"{"coding": {"servers": ["git"], "tools": {"allow": ["git__*"], "deny": ["git__push"]},"#
                + #" "rename": {"git__status": "status"}, "descriptions": {"status": "Show the status."},"#
                + #" "toolMode": "search", "clientTokens": ["t1"]}, "all": {}}"#
        )
        #expect(config.profiles.map(\.name) == ["coding", "all"])
        let coding = try #require(config.profile(named: "coding"))
        #expect(coding.servers == ["git"] && coding.includes(server: "git") && !coding.includes(server: "fs"))
        #expect(
            coding.tools.permits("git__log") && !coding.tools.permits("git__push") && !coding.tools.permits("fs__x")
        )
        #expect(coding.rename == ["git__status": "status"] && coding.descriptions == ["status": "Show the status."])
        #expect(coding.toolMode == .search && coding.clientTokens == ["t1"])
        let all = try #require(config.profile(named: "all"))
        #expect(all.servers == nil && all.includes(server: "fs") && all.toolMode == .all)
    }

    @Test func mistakesNameTheirFieldAndTheFix() {
        let unknownServer = problems(#"{"p": {"servers": ["gti"]}}"#)
        #expect(unknownServer.map(\.path) == ["profiles.p.servers[0]"])
        #expect(unknownServer.first?.fix.contains(#""git""#) == true)
        #expect(problems(#"{"Bad Name": {}}"#).map(\.path) == [#"profiles["Bad Name"]"#])
        #expect(problems(#"{"p": {"toolMode": "serch"}}"#).first?.fix.contains(#""search""#) == true)
        #expect(problems(#"{"p": {"rename": {"git__a": "has.dot"}}}"#).map(\.path) == ["profiles.p.rename.git__a"])
        let twice = problems(#"{"p": {"rename": {"git__a": "x", "git__b": "x"}}}"#)
        #expect(twice.map(\.path) == ["profiles.p.rename.git__b"])
        #expect(twice.first?.message == #""git__b" and "git__a" are both renamed "x""#)
        #expect(problems(#"{"p": {"colour": 1}}"#).map(\.path) == ["profiles.p.colour"])
    }

    @Test func patternsMatchAnyRunOfCharacters() {
        #expect(ToolFilter.matches("git__*", "git__status"))
        #expect(ToolFilter.matches("*__status", "git__status"))
        #expect(ToolFilter.matches("g*__s*s", "git__status"))
        #expect(!ToolFilter.matches("g*__x*", "git__status"))
        #expect(!ToolFilter.matches("a*a", "a"))
        #expect(ToolFilter.matches("*", "anything") && ToolFilter.matches("exact", "exact"))
    }

    @Test func profileTokensAreHiddenAndPutBackWhenSentAsShown() throws {
        let entry: JSONValue = ["servers": ["git"], "clientTokens": ["secret-one", "${TOKEN}"]]
        let shown = ConfigDocument.redactedProfile(entry)
        #expect(shown["clientTokens"] == ["********", "${TOKEN}"])
        #expect(ConfigDocument.restoringRedactedProfile(shown, from: entry) == entry)
        let changed: JSONValue = ["clientTokens": ["new-token", "${TOKEN}"]]
        #expect(
            ConfigDocument.restoringRedactedProfile(changed, from: entry)["clientTokens"] == ["new-token", "${TOKEN}"]
        )
    }
}
