import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// The servers' lists as one: every item under its server's prefix, the first server in the config keeping
/// a name two of them claim, and upstream pages followed to the end.
@Suite struct MergedCatalogTests {
    private func names(_ answer: Answer, _ key: String, _ field: String = "name") -> [String] {
        (answer.result?[key]?.arrayValue ?? []).compactMap { $0[field]?.stringValue }
    }

    @Test func twoServersListsAppearPrefixedInOneList() async throws {
        let channels = FakeUpstreams()
        channels["a"].change {
            $0.tools = [FakeUpstreamScript.tool("echo"), FakeUpstreamScript.tool("add")]
            $0.prompts = [FakeUpstreamScript.prompt("greet")]
            $0.resources = [FakeUpstreamScript.resource("file:///a")]
        }
        channels["b"].change {
            $0.tools = [FakeUpstreamScript.tool("echo")]
            $0.prompts = [FakeUpstreamScript.prompt("greet")]
            $0.resources = [FakeUpstreamScript.resource("file:///b")]
        }
        let running = RunningGateway([stdioSpec("a"), stdioSpec("b")], channels: channels)
        #expect(await running.connected("a", "b"))
        let session = try await running.openSession()

        let tools = await running.send(MCPMethod.toolsList, id: .int(1), in: session)
        #expect(Set(names(tools, "tools")) == ["a__echo", "a__add", "b__echo"])
        let prompts = await running.send(MCPMethod.promptsList, id: .int(2), in: session)
        #expect(Set(names(prompts, "prompts")) == ["a__greet", "b__greet"])
        let resources = await running.send(MCPMethod.resourcesList, id: .int(3), in: session)
        #expect(Set(names(resources, "resources", "uri")) == ["file:///a", "file:///b"], "URIs are kept")
        #expect(running.gateway.snapshot.catalog.conflicts.isEmpty)
        await running.stop()
    }

    @Test func aNameTwoServersClaimStaysWithTheFirstInTheConfig() async throws {
        let channels = FakeUpstreams()
        for id in ["a", "b"] {
            channels[id].change {
                $0.tools = [FakeUpstreamScript.tool("echo", description: "from \(id)")]
                $0.resources = [FakeUpstreamScript.resource("file:///shared")]
            }
            channels[id].handle(MCPMethod.resourcesRead) { _ in .result(["contents": [["text": .string(id)]]]) }
        }
        let specs = [stdioSpec("a", prefix: "x"), stdioSpec("b", prefix: "x")]
        let running = RunningGateway(specs, channels: channels)
        #expect(await running.connected("a", "b"))
        let session = try await running.openSession()

        let tools = await running.send(MCPMethod.toolsList, id: .int(1), in: session)
        let listed = tools.result?["tools"]?.arrayValue ?? []
        #expect(listed.count == 1)
        #expect(listed.first?["name"] == "x__echo")
        #expect(listed.first?["description"] == "from a")
        #expect(!running.gateway.snapshot.catalog.conflicts.isEmpty, "the clash is reported")

        _ = await running.call("x__echo", in: session)
        #expect(running["a"].requests(MCPMethod.toolsCall).count == 1)
        #expect(running["b"].requests(MCPMethod.toolsCall).isEmpty)

        let read = await running.send(MCPMethod.resourcesRead, ["uri": "file:///shared"], id: .int(2), in: session)
        #expect(read.result?["contents"]?.arrayValue?.first?["text"] == "a")
        await running.stop()
    }

    @Test func anUpstreamsPagesAreFollowedToTheEnd() async throws {
        let channels = FakeUpstreams()
        channels["a"].change {
            $0.tools = (1...5).map { FakeUpstreamScript.tool("t\($0)") }
            $0.pageSize = 2
        }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        let session = try await running.openSession()
        let tools = await running.send(MCPMethod.toolsList, id: .int(1), in: session)
        #expect(names(tools, "tools") == ["a__t1", "a__t2", "a__t3", "a__t4", "a__t5"])
        #expect(running["a"].requests(MCPMethod.toolsList).count == 3, "three pages of two")
        await running.stop()
    }
}
