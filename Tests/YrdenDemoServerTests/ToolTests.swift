import Testing
import YrdenDemoServer
import YrdenProtocol

@Suite struct ToolTests {
    private func tools() throws -> [String: JSONValue] {
        let (core, _) = makeCore()
        let list = try #require(core.result(MCPMethod.toolsList)["tools"]?.arrayValue)
        return Dictionary(uniqueKeysWithValues: list.map { ($0["name"]?.stringValue ?? "", $0) })
    }

    @Test func listHasTheFiveToolsWithObjectSchemas() throws {
        let tools = try tools()
        #expect(Set(tools.keys) == ["echo", "add", "slow", "show_dashboard", "fail"])
        for (name, tool) in tools {
            #expect(tool["title"]?.stringValue != nil, "\(name) has no title")
            #expect(tool["description"]?.stringValue != nil, "\(name) has no description")
            #expect(tool["inputSchema"]?["type"] == "object", "\(name)")
            #expect(tool["inputSchema"]?["properties"]?.objectValue != nil, "\(name)")
            #expect(tool["inputSchema"]?["required"]?.arrayValue != nil, "\(name)")
            #expect(tool["annotations"]?["readOnlyHint"] == true, "\(name)")
            if let output = tool["outputSchema"] { #expect(output["type"] == "object", "\(name)") }
        }
        #expect(tools["echo"]?["inputSchema"]?["required"] == ["message"])
        #expect(tools["add"]?["inputSchema"]?["required"] == ["a", "b"])
        #expect(tools["echo"]?["outputSchema"]?["properties"]?["message"] != nil)
        #expect(tools["add"]?["outputSchema"]?["properties"]?["sum"] != nil)
    }

    @Test func dashboardToolCarriesBothUILinks() throws {
        let meta = try #require(try tools()["show_dashboard"]?["_meta"])
        #expect(meta["ui"]?["resourceUri"] == "ui://demo/dashboard")
        #expect(meta["ui/resourceUri"] == "ui://demo/dashboard")
        #expect(try tools()["echo"]?["_meta"] == nil)
    }

    @Test func echoReturnsTheTextAsContentAndStructuredContent() throws {
        let (core, _) = makeCore()
        let text = "héllo \"world\"\nline two"
        let result = try core.result(MCPMethod.toolsCall, callParams("echo", ["message": .string(text)]))
        #expect(result["content"] == [["type": "text", "text": .string(text)]])
        #expect(result["structuredContent"] == ["message": .string(text)])
        #expect(result["isError"] == nil)
    }

    @Test func echoOverTheLineInterface() throws {
        let (core, _) = makeCore()
        let line =
            #"{"jsonrpc":"2.0","id":"e1","method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#
        let reply = try #require(core.handle(line: Array(line.utf8)))
        let expected =
            #"{"jsonrpc":"2.0","id":"e1","result":{"content":[{"type":"text","text":"hi"}],"#
            + #""structuredContent":{"message":"hi"}}}"#
        #expect(reply.jsonText == expected)
    }

    @Test(arguments: [
        (JSONValue.int(2), JSONValue.int(3), JSONValue.int(5), "5"),
        (.double(1.5), .int(2), .double(3.5), "3.5"),
        (.int(-4), .double(0.25), .double(-3.75), "-3.75"),
        (.int(Int.max), .int(1), .double(Double(Int.max) + 1), String(Double(Int.max) + 1)),
    ])
    func addSums(_ a: JSONValue, _ b: JSONValue, _ sum: JSONValue, _ text: String) throws {
        let (core, _) = makeCore()
        let result = try core.result(MCPMethod.toolsCall, callParams("add", ["a": a, "b": b]))
        #expect(result["content"] == [["type": "text", "text": .string(text)]])
        #expect(result["structuredContent"] == ["sum": sum])
    }

    @Test func unknownToolIs32602() throws {
        let (core, _) = makeCore()
        let error = try core.error(MCPMethod.toolsCall, callParams("nope", [:]))
        #expect(error["code"] == -32602)
        #expect(error["message"]?.stringValue?.contains("nope") == true)
    }

    @Test(arguments: [
        callParams("echo"),
        callParams("echo", ["message": 5]),
        callParams("echo", "text"),
        callParams("add", ["a": 1]),
        callParams("add", ["a": 1, "b": "2"]),
        callParams("slow", ["seconds": 61]),
        callParams("slow", ["seconds": -1]),
        callParams("slow", ["steps": 0]),
        callParams("slow", ["steps": 1.5]),
        ["arguments": [:]],
    ])
    func badArgumentsAre32602(_ params: JSONValue) throws {
        let (core, _) = makeCore()
        #expect(try core.error(MCPMethod.toolsCall, params)["code"] == -32602)
    }

    @Test func missingArgumentIsNamed() throws {
        let (core, _) = makeCore()
        let error = try core.error(MCPMethod.toolsCall, callParams("add", ["b": 1]))
        #expect(error["message"]?.stringValue?.contains("'a'") == true)
    }

    @Test func showDashboardReturnsStructuredContent() throws {
        let (core, _) = makeCore()
        let result = try core.result(MCPMethod.toolsCall, callParams("show_dashboard", [:]))
        #expect(result["structuredContent"] == ["visits": 42, "status": "ok"])
        #expect(result["content"]?.arrayValue?.first?["type"] == "text")
    }

    @Test func failIsAnExecutionErrorNotAProtocolError() throws {
        let (core, _) = makeCore()
        let plain = try core.result(MCPMethod.toolsCall, callParams("fail"))
        #expect(plain["isError"] == true)
        #expect(plain["content"]?.arrayValue?.first?["text"]?.stringValue?.isEmpty == false)
        let custom = try core.result(MCPMethod.toolsCall, callParams("fail", ["message": "boom"]))
        #expect(custom["content"] == [["type": "text", "text": "boom"]])
        #expect(custom["isError"] == true)
    }
}
