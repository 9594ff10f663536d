import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// A profile's clients see its servers and tools under its names, reach nothing else, hear only of changes to
/// their own lists; a profile in search mode offers a search and a call tool over the shared index.
@Suite struct ProfileScopeTests {
    private static func names(_ answer: Answer, _ key: String = "tools") -> [String] {
        (answer.result?[key]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
    }

    private static func running(_ profiles: [ProfileSpec]) async -> RunningGateway {
        let channels = FakeUpstreams()
        channels["a"].change { $0.tools = [FakeUpstreamScript.tool("echo"), FakeUpstreamScript.tool("secret")] }
        channels["b"].change { $0.tools = [FakeUpstreamScript.tool("other")] }
        let running = RunningGateway([stdioSpec("a"), stdioSpec("b")], channels: channels)
        await running.gateway.registry.setProfiles(profiles)
        return running
    }

    @Test func aProfileFiltersRenamesAndRedescribesAndRoutesByItsNames() async throws {
        let coding = ProfileSpec(
            name: "coding",
            servers: ["a"],
            tools: ToolFilter(deny: ["a__sec*"]),
            rename: ["a__echo": "say"],
            descriptions: ["say": "Says it back."]
        )
        let running = await Self.running([coding])
        #expect(await running.connected("a", "b"))
        let session = try await running.openSession(scope: .profile("coding"))
        let listed = await running.send(MCPMethod.toolsList, in: session)
        #expect(Self.names(listed) == ["say"])
        #expect(listed.result?["tools"]?.arrayValue?.first?["description"] == "Says it back.")
        let call = await running.send(MCPMethod.toolsCall, ["name": "say"], id: .int(2), in: session)
        #expect(call.result != nil)
        #expect(running["a"].requests(MCPMethod.toolsCall).first?.params?["name"] == "echo")
        for hidden in ["a__echo", "a__secret", "b__other"] {
            let refused = await running.send(MCPMethod.toolsCall, ["name": .string(hidden)], id: .int(3), in: session)
            #expect(refused.error?.message == "Unknown tool: \(hidden) (profile coding)")
        }
        await running.stop()
    }

    @Test func twoNamesRenamedAlikeAreAClashReportedNotADroppedTool() async throws {
        let clash = ProfileSpec(name: "clash", rename: ["b__other": "a__echo"])
        let running = await Self.running([clash])
        #expect(await running.connected("a", "b"))
        let view = try #require(running.gateway.snapshot.profiles["clash"])
        #expect(view.visibleTools.compactMap { $0["name"]?.stringValue } == ["a__echo", "a__secret"])
        #expect(view.conflicts.count == 1 && view.conflicts[0].contains("b__other"))
        await running.stop()
    }

    @Test func onlyTheProfileWhoseListChangedHearsOfIt() async throws {
        let running = await Self.running([
            ProfileSpec(name: "onlyA", servers: ["a"]), ProfileSpec(name: "onlyB", servers: ["b"]),
        ])
        #expect(await running.connected("a", "b"))
        let a = try await running.openSession(scope: .profile("onlyA"))
        let b = try await running.openSession(scope: .profile("onlyB"))
        let aInbox = Recording.following(a.openNotificationStream())
        let bInbox = Recording.following(b.openNotificationStream())
        running["b"].change { $0.tools.append(FakeUpstreamScript.tool("more")) }
        #expect(running["b"].notify(MCPMethod.toolsListChanged))
        #expect(await bInbox.first(where: { $0.method == MCPMethod.toolsListChanged }) != nil)
        #expect(!aInbox.elements.contains { $0.method == MCPMethod.toolsListChanged })
        #expect(Self.names(await running.send(MCPMethod.toolsList, in: b)) == ["b__other", "b__more"])
        await running.stop()
    }

    @Test func searchModeFindsTheProfilesToolsAndCallsThem() async throws {
        let running = await Self.running([
            ProfileSpec(name: "find", tools: ToolFilter(deny: ["b__*"]), toolMode: .search)
        ])
        #expect(await running.connected("a", "b"))
        let session = try await running.openSession(scope: .profile("find"))
        #expect(Self.names(await running.send(MCPMethod.toolsList, in: session)) == ["search_tools", "call_tool"])
        let search = await running.send(
            MCPMethod.toolsCall,
            ["name": "search_tools", "arguments": ["query": "other echo secret"]],
            id: .int(2),
            in: session
        )
        let found = (search.result?["structuredContent"]?["tools"]?.arrayValue ?? []).compactMap {
            $0["name"]?.stringValue
        }
        #expect(Set(found) == ["a__echo", "a__secret"], "b's tools are not the profile's")
        let call = await running.send(
            MCPMethod.toolsCall,
            ["name": "call_tool", "arguments": ["name": "a__echo", "arguments": ["x": 1]]],
            id: .int(3),
            in: session
        )
        #expect(call.result != nil)
        let forwarded = running["a"].requests(MCPMethod.toolsCall).first?.params
        #expect(forwarded?["name"] == "echo" && forwarded?["arguments"]?["x"] == 1)
        await running.stop()
    }
}
