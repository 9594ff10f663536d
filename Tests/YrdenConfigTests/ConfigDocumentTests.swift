import Foundation
import Testing
import YrdenProtocol

@testable import YrdenConfig

/// Helpers for documents written inline as JSON text.
enum Document {
    static func parse(_ text: String) throws(ConfigError) -> ConfigDocument {
        try ConfigDocument(parsing: Array(text.utf8), source: "test.json")
    }

    static func text(_ document: ConfigDocument) -> String {
        String(decoding: document.serialized(), as: UTF8.self)
    }

    /// The problems of `body` thrown by `body`; empty when it does not throw.
    static func problems<T>(_ body: () throws(ConfigError) -> T) -> [ConfigProblem] {
        do {
            _ = try body()
            return []
        } catch {
            return error.problems
        }
    }
}

@Suite struct ConfigDocumentTests {
    private static let withReference = #"""
        {"gateway": {"listen": "127.0.0.1:9000"},
         "mcpServers": {
           "search": {"url": "https://search.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
           "time": {"command": "python3", "args": ["-m", "mcp_server_time"], "env": {"TZ": "UTC"}}}}
        """#

    @Test func roundTripKeepsReferencesWhileDecodingExpandsThem() throws {
        let document = try Document.parse(Self.withReference)
        let written = Document.text(document)
        #expect(written.contains(#""Authorization": "Bearer ${TOKEN}""#))
        #expect(!written.contains("s3cret"))

        let config = try document.decoded(environment: ["TOKEN": "s3cret"], source: "test.json")
        let expected = TransportSpec.http(
            url: "https://search.example/mcp",
            headers: ["Authorization": "Bearer s3cret"],
            auth: .none,
            fallbackToSSE: true
        )
        #expect(config.server(id: "search")?.transport == expected)

        let reread = try ConfigDocument(parsing: document.serialized(), source: "written.json")
        #expect(reread == document)
        #expect(reread.json.jsonText == document.json.jsonText, "key order survives the write-back")
        #expect(reread.serverIDs == ["search", "time"])
    }

    @Test func serializedIsIndentedWithATrailingNewline() throws {
        let document = try Document.parse(#"{"mcpServers":{"t":{"command":"x","args":["a"]}}}"#)
        let expected = """
            {
              "mcpServers": {
                "t": {
                  "command": "x",
                  "args": [
                    "a"
                  ]
                }
              }
            }

            """
        #expect(Document.text(document) == expected)
    }

    @Test func decodedReportsEveryProblemWithItsPath() throws {
        let document = try Document.parse(
            #"{"gateway": {"toolSeparator": "-"}, "mcpServers": {"a-b": {"url": "https://x"},"#
                + #" "c": {"command": ""}, "d": {"command": "x", "prefix": "p"}, "e": {"url": "https://y","#
                + #" "prefix": "p"}}, "extra": 1}"#
        )
        let problems = Document.problems { () throws(ConfigError) in
            try document.decoded(environment: [:], source: "edited.json")
        }
        #expect(problems.map(\.path) == ["extra", "mcpServers.a-b", "mcpServers.c.command", "mcpServers.e.prefix"])
        #expect(problems.last?.message == #"prefix "p" is also used by server "d""#)
    }

    @Test func decodedAppliesOverridesAndTheExposureCheck() throws {
        let document = try Document.parse(#"{"gateway": {"adminToken": ""}}"#)
        let exposed = Document.problems { () throws(ConfigError) in
            try document.decoded(environment: ["YRDEN_LISTEN": "0.0.0.0:80"], source: "test.json")
        }
        #expect(exposed.map(\.path) == ["gateway.listen"])
        #expect(exposed.first?.message == "binding 0.0.0.0 exposes the admin API")
        let config = try document.decoded(
            environment: ["YRDEN_LISTEN": "0.0.0.0:80", "YRDEN_ADMIN_TOKEN": "t"],
            source: "x"
        )
        #expect(config.gateway.listenAddress == "0.0.0.0:80")
        #expect(config.gateway.adminToken == "t")
    }

    @Test func parseProblemsSayWhereTheSyntaxBreaks() {
        func messages(_ text: String) -> [String] {
            Document.problems { () throws(ConfigError) in try Document.parse(text) }.map(\.message)
        }
        #expect(messages(" \n") == ["the file is empty"])
        #expect(messages("{") == ["invalid JSON at line 1, column 2: expected a key"])
        #expect(messages("{} {}") == ["invalid JSON at line 1, column 4: unexpected data after the document"])
        #expect(messages("{\n  // note\n}").first?.hasPrefix("invalid JSON at line 2, column 3:") == true)
        #expect(messages(#"{"a": 1}"#).isEmpty, "a document with problems still parses; decoding reports them")
    }

    @Test func notAnObjectIsRefusedWithTheDecodersMessage() {
        let problems = Document.problems { () throws(ConfigError) in try Document.parse("[]") }
        #expect(problems.map(\.message) == ["the configuration must be a JSON object, found an array"])
    }

    @Test func byteOrderMarkIsSkippedAndNotWrittenBack() throws {
        let document = try ConfigDocument(parsing: [0xEF, 0xBB, 0xBF] + Array("{}".utf8), source: "bom")
        #expect(document == ConfigDocument())
        #expect(document.serialized() == Array("{}\n".utf8))
    }

    @Test func embeddedDefaultIsTheDemoServerUnexpanded() throws {
        let document = ConfigDocument.embeddedDefault
        #expect(document.serverIDs == ["demo"])
        #expect(document.entry("demo")?["command"] == "${YRDEN_EXECUTABLE}")
        let environment = ["YRDEN_EXECUTABLE": "/usr/bin/yrden"]
        let config = try document.decoded(environment: environment, source: "embedded default")
        let loaded = try ConfigLoader.decode(
            Array(GatewayConfig.embeddedDefaultJSON.utf8),
            source: "embedded default",
            environment: environment
        )
        #expect(config == loaded)
        #expect(
            config.servers.first?.transport
                == .stdio(command: "/usr/bin/yrden", args: ["demo-server"], env: [:], cwd: nil)
        )
    }

    @Test func loadDocumentReadsTheFileAsWritten() throws {
        let path = NSTemporaryDirectory() + "yrden-document-\(UInt32.random(in: 0...UInt32.max)).json"
        try Data(Self.withReference.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }

        var document = try ConfigLoader.loadDocument(path: path)
        #expect(document.entry("search")?["headers"]?["Authorization"] == "Bearer ${TOKEN}")

        document.setEntry(["command": "${BIN}"], for: "added")
        try Data(document.serialized()).write(to: URL(fileURLWithPath: path))
        let config = try ConfigLoader.load(path: path, environment: ["TOKEN": "t", "BIN": "/bin/added"])
        #expect(config.servers.map(\.id) == ["search", "time", "added"])
        #expect(config.server(id: "added")?.transport == .stdio(command: "/bin/added", args: [], env: [:], cwd: nil))
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains("${BIN}") && written.contains("${TOKEN}"))
    }

    @Test func loadDocumentReportsUnreadableAndInvalidFilesAsLoadDoes() throws {
        let missing = "/nonexistent/yrden.json"
        let problems = Document.problems { () throws(ConfigError) in try ConfigLoader.loadDocument(path: missing) }
        let loadProblems = Document.problems { () throws(ConfigError) in
            try ConfigLoader.load(path: missing, environment: [:])
        }
        #expect(problems.count == 1)
        #expect(problems == loadProblems)

        let path = NSTemporaryDirectory() + "yrden-document-\(UInt32.random(in: 0...UInt32.max)).json"
        try Data("{\"mcpServers\": }".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try ConfigLoader.loadDocument(path: path)
            Issue.record("expected an error")
        } catch {
            #expect(error.source == path)
            #expect(error.problems.map(\.message) == ["invalid JSON at line 1, column 16: unexpected character"])
        }
    }
}
