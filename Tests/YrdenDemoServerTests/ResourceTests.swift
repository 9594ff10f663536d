import Testing
import YrdenDemoServer
import YrdenProtocol

@Suite struct ResourceTests {
    private func read(_ uri: String) throws -> JSONValue {
        let (core, _) = makeCore()
        let contents = try #require(core.result(MCPMethod.resourcesRead, ["uri": .string(uri)])["contents"]?.arrayValue)
        #expect(contents.count == 1)
        let content = try #require(contents.first)
        #expect(content["uri"] == .string(uri))
        return content
    }

    @Test func listNamesTheResourcesAndTheTemplate() throws {
        let (core, _) = makeCore()
        let resources = try #require(core.result(MCPMethod.resourcesList)["resources"]?.arrayValue)
        #expect(
            resources.compactMap { $0["uri"]?.stringValue } == [
                "demo://readme", "demo://status", "ui://demo/dashboard",
            ]
        )
        let templates = try #require(core.result(MCPMethod.resourceTemplatesList)["resourceTemplates"]?.arrayValue)
        #expect(templates.map { $0["uriTemplate"] } == ["demo://greeting/{name}"])
        #expect(templates.first?["mimeType"] == "text/plain")
    }

    @Test func readmeIsMarkdown() throws {
        let content = try read("demo://readme")
        #expect(content["mimeType"] == "text/markdown")
        #expect(content["text"]?.stringValue?.hasPrefix("# Yrden demo server") == true)
    }

    @Test func statusIsJSON() throws {
        let content = try read("demo://status")
        #expect(content["mimeType"] == "application/json")
        let status = try JSONValue.parse(try #require(content["text"]?.stringValue))
        #expect(status["status"] == "ok")
        #expect(status["runningSlowCalls"] == 0)
    }

    @Test func dashboardIsAnMCPAppPage() throws {
        let content = try read("ui://demo/dashboard")
        #expect(content["mimeType"] == "text/html;profile=mcp-app")
        #expect(content["_meta"]?["ui"]?["csp"] == [:])
        #expect(content["_meta"]?["ui"]?["prefersBorder"] == true)
        let html = try #require(content["text"]?.stringValue)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("ui/initialize"))
        #expect(!html.contains("http://") && !html.contains("https://"), "the page must be self-contained")
    }

    @Test(arguments: [
        ("demo://greeting/Ada", "Hello, Ada!"),
        ("demo://greeting/Ada%20Lovelace", "Hello, Ada Lovelace!"),
        ("demo://greeting/%C3%89mile", "Hello, Émile!"),
    ])
    func greetingTemplate(_ uri: String, _ text: String) throws {
        let content = try read(uri)
        #expect(content["mimeType"] == "text/plain")
        #expect(content["text"] == .string(text))
    }

    @Test(arguments: [
        "demo://nope", "demo://greeting/", "demo://greeting/a/b", "demo://greeting/%zz", "ui://demo/other",
    ])
    func unknownResourceIs32002WithTheURI(_ uri: String) throws {
        let (core, _) = makeCore()
        let error = try core.error(MCPMethod.resourcesRead, ["uri": .string(uri)])
        #expect(error["code"] == -32002)
        #expect(error["data"]?["uri"] == .string(uri))
    }

    @Test func readWithoutAURIIs32602() throws {
        let (core, _) = makeCore()
        #expect(try core.error(MCPMethod.resourcesRead, [:])["code"] == -32602)
    }
}
