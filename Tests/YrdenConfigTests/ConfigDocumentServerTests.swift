import Testing
import YrdenProtocol

@testable import YrdenConfig

@Suite struct ConfigDocumentServerTests {
    private static let threeServers = #"""
        {"gateway": {"toolSeparator": "__"},
         "mcpServers": {
           "a": {"command": "/bin/a"},
           "b": {"command": "/bin/b", "prefix": "bee"},
           "c": {"url": "https://c.example/mcp"}}}
        """#

    @Test func listsAndReadsEntriesAsWritten() throws {
        let document = try Document.parse(Self.threeServers)
        #expect(document.serverIDs == ["a", "b", "c"])
        #expect(document.entry("b") == ["command": "/bin/b", "prefix": "bee"])
        #expect(document.entry("z") == nil)
        #expect(try Document.parse(#"{"gateway": {}}"#).serverIDs.isEmpty)
        #expect(try Document.parse(#"{"mcpServers": []}"#).serverIDs.isEmpty)
    }

    @Test func setEntryReplacesInPlaceOrAppends() throws {
        var document = try Document.parse(Self.threeServers)
        document.setEntry(["url": "https://b.example/mcp"], for: "b")
        document.setEntry(["command": "/bin/d"], for: "d")
        #expect(document.serverIDs == ["a", "b", "c", "d"])
        #expect(document.entry("b") == ["url": "https://b.example/mcp"])
        let text = Document.text(document)
        let order = ["\"a\"", "\"b\"", "\"c\"", "\"d\""].compactMap { text.firstRange(of: $0)?.lowerBound }
        #expect(order.count == 4 && order == order.sorted())
        #expect(text.hasPrefix("{\n  \"gateway\""), "other sections keep their place")
    }

    @Test func setEntryCreatesTheServersSection() throws {
        var document = try Document.parse(#"{"gateway": {"listen": "127.0.0.1:9"}}"#)
        document.setEntry(["command": "/bin/t"], for: "t")
        #expect(
            document.json.jsonText == #"{"gateway":{"listen":"127.0.0.1:9"},"mcpServers":{"t":{"command":"/bin/t"}}}"#
        )
        var empty = ConfigDocument()
        empty.setEntry(["command": "/bin/t"], for: "t")
        #expect(empty.serverIDs == ["t"])
        #expect(try empty.decoded(environment: [:], source: "new").servers.map(\.id) == ["t"])
    }

    @Test func removeEntrySaysWhetherThereWasOne() throws {
        var document = try Document.parse(Self.threeServers)
        let removed = document.removeEntry("b")
        let removedAgain = document.removeEntry("b")
        let removedUnknown = document.removeEntry("z")
        #expect(removed && !removedAgain && !removedUnknown)
        #expect(document.serverIDs == ["a", "c"])
        var none = ConfigDocument()
        let removedFromNone = none.removeEntry("a")
        #expect(!removedFromNone)
        #expect(none == ConfigDocument(), "removing from a document without servers adds nothing")
    }

    @Test func validEntryDecodesWithTheEnvironment() throws {
        let document = try Document.parse(Self.threeServers)
        let entry: JSONValue = ["command": "python3", "args": ["-m", "t"], "env": ["TZ": "${ZONE}"]]
        let spec = try document.validatingEntry(entry, id: "time", environment: ["ZONE": "UTC"])
        #expect(spec.id == "time")
        #expect(spec.prefix == "time")
        #expect(spec.transport == .stdio(command: "python3", args: ["-m", "t"], env: ["TZ": "UTC"], cwd: nil))
        #expect(document.entry("time") == nil, "validating does not store")
    }

    @Test func invalidEntryNamesTheFieldWithTheFilesFix() throws {
        var document = try Document.parse(Self.threeServers)
        let entry: JSONValue = ["command": "npx -y mcp-server-time", "timeouts": ["connect": 0]]
        let problems = Document.problems { () throws(ConfigError) in
            try document.validatingEntry(entry, id: "time", environment: [:])
        }
        #expect(problems.map(\.path) == ["mcpServers.time.command", "mcpServers.time.timeouts.connect"])
        #expect(problems.first?.message.hasPrefix(#"command "npx -y mcp-server-time" contains spaces"#) == true)
        #expect(
            problems.first?.fix == #"put the program in "command" and the rest in "args": "command": "npx","#
                + #" "args": ["-y", "mcp-server-time"]"#
        )
        let inFile = Config.serverProblems(#"{"command": "npx -y mcp-server-time", "timeouts": {"connect": 0}}"#)
        #expect(problems.map(\.message) == inFile.map(\.message))
        #expect(problems.map(\.fix) == inFile.map(\.fix))

        document.setEntry(entry, for: "time")
        let stored = Document.problems { () throws(ConfigError) in try document.decoded(environment: [:], source: "f") }
        #expect(stored == problems, "the stored entry fails to load exactly as validation said")
    }

    @Test func errorsNameTheirSource() throws {
        let document = try Document.parse(Self.threeServers)
        do {
            _ = try document.validatingEntry(["command": ""], id: "x", environment: [:])
            Issue.record("expected an error")
        } catch {
            #expect(error.source == "admin API")
            #expect(
                error.description
                    == "admin API: mcpServers.x.command: command is empty — give command a value, or remove the key"
            )
        }
        do {
            _ = try document.validatingEntry(["command": ""], id: "x", environment: [:], source: "PUT /servers/x")
            Issue.record("expected an error")
        } catch {
            #expect(error.source == "PUT /servers/x")
        }
    }

    @Test func idRulesAndTheGatewaysSeparatorApply() throws {
        let document = try Document.parse(Self.threeServers)
        let entry: JSONValue = ["command": "/bin/x"]
        let badID = Document.problems { () throws(ConfigError) in
            try document.validatingEntry(entry, id: "My Server", environment: [:])
        }
        #expect(badID.map(\.path) == [#"mcpServers["My Server"]"#])
        #expect(badID.first?.message == #"server id "My Server" is not valid"#)

        let separated = Document.problems { () throws(ConfigError) in
            try document.validatingEntry(entry, id: "my__server", environment: [:])
        }
        #expect(separated.map(\.message) == [#"server id "my__server" contains the tool separator "__""#])

        let dashed = try Document.parse(#"{"gateway": {"toolSeparator": "-"}}"#)
        #expect(throws: ConfigError.self) { try dashed.validatingEntry(entry, id: "my-server", environment: [:]) }
        #expect(try document.validatingEntry(entry, id: "my-server", environment: [:]).id == "my-server")
    }

    @Test func prefixMustDifferFromTheOtherServers() throws {
        let document = try Document.parse(Self.threeServers)
        let added = Document.problems { () throws(ConfigError) in
            try document.validatingEntry(["command": "/bin/x", "prefix": "bee"], id: "x", environment: [:])
        }
        #expect(added.map(\.path) == ["mcpServers.x.prefix"])
        #expect(added.first?.message == #"prefix "bee" is also used by server "b""#)

        // "a" comes before "b" in the file, yet the collision is reported on the entry being validated.
        let replaced = Document.problems { () throws(ConfigError) in
            try document.validatingEntry(["command": "/bin/a", "prefix": "bee"], id: "a", environment: [:])
        }
        #expect(replaced.map(\.path) == ["mcpServers.a.prefix"])
        #expect(replaced.first?.message == #"prefix "bee" is also used by server "b""#)

        let idAsPrefix = Document.problems { () throws(ConfigError) in
            try document.validatingEntry(["command": "/bin/x", "prefix": "c"], id: "x", environment: [:])
        }
        #expect(idAsPrefix.first?.message == #"prefix "c" is also used by server "c""#)

        // Replacing a server keeps its own prefix free for it.
        let same = try document.validatingEntry(["command": "/bin/b2", "prefix": "bee"], id: "b", environment: [:])
        #expect(same.prefix == "bee")
    }
}
