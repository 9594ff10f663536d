import Testing
import YrdenDemoServer
import YrdenProtocol

@Suite struct PromptTests {
    @Test func listDescribesBothPromptsAndTheirArguments() throws {
        let (core, _) = makeCore()
        let prompts = try #require(core.result(MCPMethod.promptsList)["prompts"]?.arrayValue)
        #expect(prompts.map { $0["name"] } == ["greet", "review_code"])
        let greetArguments = try #require(prompts[0]["arguments"]?.arrayValue)
        #expect(greetArguments.map { $0["name"] } == ["name", "style"])
        #expect(greetArguments.map { $0["required"] } == [true, false])
    }

    private func text(of result: JSONValue) throws -> String {
        let messages = try #require(result["messages"]?.arrayValue)
        #expect(messages.count == 1)
        #expect(messages.first?["role"] == "user")
        #expect(messages.first?["content"]?["type"] == "text")
        return try #require(messages.first?["content"]?["text"]?.stringValue)
    }

    @Test(arguments: [(nil, "Please greet Ada."), ("formal", "formal greeting for Ada"), ("casual", "casual")])
    func greetWithEachStyle(_ style: String?, _ expected: String) throws {
        let (core, _) = makeCore()
        var arguments: JSONObject = ["name": "Ada"]
        if let style { arguments["style"] = .string(style) }
        let result = try core.result(MCPMethod.promptsGet, ["name": "greet", "arguments": .object(arguments)])
        #expect(try text(of: result).contains(expected))
    }

    @Test func reviewCodeEmbedsTheCodeAndLanguage() throws {
        let (core, _) = makeCore()
        let result = try core.result(
            MCPMethod.promptsGet,
            ["name": "review_code", "arguments": ["code": "let x = 1", "language": "swift"]]
        )
        let text = try text(of: result)
        #expect(text.contains("```swift\nlet x = 1\n```"))
        let plain = try core.result(MCPMethod.promptsGet, ["name": "review_code", "arguments": ["code": "x"]])
        #expect(try self.text(of: plain).contains("```\nx\n```"))
    }

    @Test(arguments: [
        ("greet", JSONValue.object([:]) as JSONValue?, "'name'"),
        ("greet", nil, "'name'"),
        ("review_code", JSONValue.object(["language": "swift"]), "'code'"),
    ])
    func missingRequiredArgumentIs32602NamingIt(_ prompt: String, _ arguments: JSONValue?, _ named: String) throws {
        let (core, _) = makeCore()
        var params: JSONObject = ["name": .string(prompt)]
        if let arguments { params["arguments"] = arguments }
        let error = try core.error(MCPMethod.promptsGet, .object(params))
        #expect(error["code"] == -32602)
        #expect(error["message"]?.stringValue?.contains(named) == true)
    }

    @Test func unknownPromptAndBadStyleAre32602() throws {
        let (core, _) = makeCore()
        #expect(try core.error(MCPMethod.promptsGet, ["name": "nope"])["code"] == -32602)
        let badStyle = try core.error(
            MCPMethod.promptsGet,
            ["name": "greet", "arguments": ["name": "A", "style": "rude"]]
        )
        #expect(badStyle["code"] == -32602)
    }
}
