import Foundation
import Testing

@testable import YrdenConfig

@Suite struct ParseAndLoadTests {
    @Test func locationCountsLinesAndCharacters() {
        let bytes = Array("ab\ncdé\nx".utf8)
        #expect(ConfigLoader.location(of: 0, in: bytes) == (1, 1))
        #expect(ConfigLoader.location(of: 3, in: bytes) == (2, 1))
        #expect(ConfigLoader.location(of: 7, in: bytes) == (2, 4))
        #expect(ConfigLoader.location(of: 8, in: bytes) == (3, 1))
    }

    @Test func parseErrorIsTheOnlyProblem() throws {
        let problems = Config.problems("{\"mcpServers\": {\n  // a comment\n}}")
        let problem = try #require(problems.first)
        #expect(problems.count == 1)
        #expect(problem.path == "")
        #expect(problem.message.hasPrefix("invalid JSON at line 2, column 3:"))
    }

    @Test func emptyFileSaysSo() {
        #expect(Config.problems(" \n").map(\.message) == ["the file is empty"])
    }

    @Test func byteOrderMarkIsIgnored() throws {
        let config = try ConfigLoader.decode([0xEF, 0xBB, 0xBF] + Array("{}".utf8), source: "bom", environment: [:])
        #expect(config == GatewayConfig())
    }

    @Test func loadReadsAFile() throws {
        let path = NSTemporaryDirectory() + "yrden-config-\(UInt32.random(in: 0...UInt32.max)).json"
        try Data(#"{"mcpServers": {"t": {"command": "${BIN}"}}}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let config = try ConfigLoader.load(path: path, environment: ["BIN": "/bin/t"])
        #expect(config.servers.first?.transport == .stdio(command: "/bin/t", args: [], env: [:], cwd: nil))
        #expect(throws: ConfigError.self) { try ConfigLoader.load(path: path, environment: ["BIN": ""]) }
        do {
            _ = try ConfigLoader.load(path: path, environment: ["BIN": ""])
        } catch {
            #expect(error.source == path)
            #expect(error.description.hasPrefix("\(path): mcpServers.t.command: command is empty"))
        }
    }

    @Test func unreadableFileNamesTheFileAndTheReason() throws {
        let path = "/nonexistent/yrden.json"
        do {
            _ = try ConfigLoader.load(path: path, environment: [:])
            Issue.record("expected an error")
        } catch {
            #expect(
                error.problems == [
                    ConfigProblem(
                        path: "",
                        message: "cannot read /nonexistent/yrden.json: No such file or directory (errno 2)",
                        fix: "check the path, or create the file"
                    )
                ]
            )
            #expect(
                error.description == "/nonexistent/yrden.json: cannot read /nonexistent/yrden.json: No such file"
                    + " or directory (errno 2) — check the path, or create the file"
            )
        }
        do {
            _ = try ConfigLoader.load(path: NSTemporaryDirectory(), environment: [:])
            Issue.record("expected an error")
        } catch {
            #expect(error.problems.first?.fix == "point at the config file itself, not its directory")
        }
    }
}

@Suite struct PathAndSuggestionTests {
    @Test func pathsRenderDottedWithIndicesAndQuotedOddKeys() {
        let path = JSONPath.root.appending(key: "mcpServers").appending(key: "time").appending(key: "args")
            .appending(index: 1)
        #expect(path.description == "mcpServers.time.args[1]")
        #expect(JSONPath.root.appending(key: "mcpServers").appending(key: "a.b").description == #"mcpServers["a.b"]"#)
        #expect(JSONPath.root.description == "")
    }

    @Test func editDistanceCountsSwapsAsOne() {
        #expect(KeySuggestion.editDistance("comand", "command") == 1)
        #expect(KeySuggestion.editDistance("comamnd", "command") == 1)
        #expect(KeySuggestion.editDistance("abc", "abc") == 0)
        #expect(KeySuggestion.editDistance("", "abc") == 3)
    }

    @Test func suggestionsStayWithinTwoEdits() {
        let keys = ServerSpec.keys
        #expect(KeySuggestion.closest(to: "comand", among: keys) == "command")
        #expect(KeySuggestion.closest(to: "Headers", among: keys) == "headers")
        #expect(KeySuggestion.closest(to: "timeout", among: keys) == "timeouts")
        #expect(KeySuggestion.closest(to: "transport", among: keys) == "type")
        #expect(KeySuggestion.closest(to: "autoApprove", among: keys) == nil)
        #expect(KeySuggestion.closest(to: "ab", among: keys) == nil)
    }

    @Test func suggestedIDsAreValid() {
        for raw in ["My Server", "--x--", "ÄÖÜ", "a.b.c", String(repeating: "z", count: 80)] {
            let suggestion = ConfigRules.suggestedName(for: raw)
            #expect(ConfigRules.isName(suggestion), "\(raw) -> \(suggestion)")
        }
    }
}
