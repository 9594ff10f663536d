import Testing
import YrdenDemoServer
import YrdenProtocol

@Suite struct LifecycleTests {
    @Test(arguments: ProtocolVersion.supported)
    func initializeEchoesASupportedVersion(_ version: String) throws {
        let (core, _) = makeCore()
        let result = try core.result(
            MCPMethod.initialize,
            ["protocolVersion": .string(version), "capabilities": [:], "clientInfo": ["name": "t", "version": "1"]]
        )
        #expect(result["protocolVersion"] == .string(version))
    }

    @Test(arguments: ["1999-01-01", "2026-07-28"])
    func initializeAnswersTheLatestForAnUnknownVersion(_ version: String) throws {
        let (core, _) = makeCore()
        let result = try core.result(MCPMethod.initialize, ["protocolVersion": .string(version)])
        #expect(result["protocolVersion"] == .string(ProtocolVersion.latest))
    }

    @Test func initializeDeclaresCapabilitiesAndServerInfo() throws {
        let (core, _) = makeCore()
        let result = try core.result(MCPMethod.initialize, ["protocolVersion": "2025-06-18"])
        let capabilities = try #require(result["capabilities"])
        #expect(capabilities["tools"] == ["listChanged": true])
        #expect(capabilities["resources"] == ["subscribe": false, "listChanged": false])
        #expect(capabilities["prompts"] == ["listChanged": false])
        #expect(capabilities["extensions"]?["io.modelcontextprotocol/ui"] == [:])
        #expect(result["serverInfo"] == ["name": "yrden-demo", "version": "0.1.0"])
        let instructions = try #require(result["instructions"]?.stringValue)
        #expect(!instructions.isEmpty && !instructions.contains("\n"))
    }

    @Test func initializedNotificationGetsNoReply() {
        let (core, _) = makeCore()
        core.notify(MCPMethod.initialized)
        #expect(core.handle(line: Array(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.utf8)) == nil)
    }

    @Test func pingAnswersAnEmptyObjectWithTheSameID() throws {
        let (core, _) = makeCore()
        let reply = try #require(core.request(MCPMethod.ping, id: .string("p-1")))
        #expect(reply == ["jsonrpc": "2.0", "id": "p-1", "result": [:]])
    }

    @Test(arguments: ["no/such/method", "server/discover", "logging/setLevel", "completion/complete"])
    func unknownMethodsAre32601(_ method: String) throws {
        let (core, _) = makeCore()
        #expect(try core.error(method)["code"] == -32601)
    }

    @Test(arguments: [#"{"jsonrpc":"2.0","id":1,"method":"ping""#, "not json", "{\"a\":}", "\u{FF}"])
    func malformedLineIsAParseErrorWithNullID(_ line: String) throws {
        let (core, _) = makeCore()
        let reply = try #require(core.handle(line: Array(line.utf8)))
        #expect(reply["id"] == .null)
        #expect(reply["error"]?["code"] == -32700)
        #expect(reply["jsonrpc"] == "2.0")
    }

    @Test func invalidRequestIs32600AndKeepsTheIDItCouldRead() throws {
        let (core, _) = makeCore()
        let wrongVersion = try #require(core.handle(line: Array(#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#.utf8)))
        #expect(wrongVersion["error"]?["code"] == -32600)
        #expect(wrongVersion["id"] == 7)
        let notAnObject = try #require(core.handle(line: Array("42".utf8)))
        #expect(notAnObject["error"]?["code"] == -32600)
        #expect(notAnObject["id"] == .null)
    }

    @Test func batchGetsAnArrayOfTheRequestsReplies() throws {
        let (core, _) = makeCore()
        let line =
            #"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},"#
            + #"{"jsonrpc":"2.0","id":2,"method":"nope"}]"#
        let reply = try #require(core.handle(line: Array(line.utf8)))
        let members = try #require(reply.arrayValue)
        #expect(members.count == 2)
        #expect(members[0]["result"] == [:])
        #expect(members[1]["error"]?["code"] == -32601)
    }

    @Test func repliesSerializeToASingleLine() throws {
        let (core, _) = makeCore()
        for method in [MCPMethod.toolsList, MCPMethod.resourcesList, MCPMethod.promptsList] {
            let reply = try #require(core.request(method))
            #expect(!reply.jsonText.contains("\n"))
        }
        let page = try #require(core.request(MCPMethod.resourcesRead, ["uri": "ui://demo/dashboard"]))
        #expect(!page.jsonText.contains("\n"))
    }

    @Test func listsRejectCursorsTheyNeverIssued() throws {
        let (core, _) = makeCore()
        #expect(try core.error(MCPMethod.toolsList, ["cursor": "abc"])["code"] == -32602)
        #expect(try core.result(MCPMethod.toolsList, ["cursor": nil])["tools"] != nil)
        #expect(try core.result(MCPMethod.toolsList, ["cursor": nil])["nextCursor"] == nil)
    }
}
