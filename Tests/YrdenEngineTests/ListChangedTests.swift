import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// A list that changes behind the gateway (an upstream's own change, a server coming or going) is reloaded,
/// and every open session is told, so no client keeps calling tools that are gone or misses new ones.
@Suite struct ListChangedTests {
    private static func isToolsChanged(_ message: JSONRPCMessage) -> Bool {
        message.method == MCPMethod.toolsListChanged
    }

    @Test func anUpstreamsListChangeIsReloadedAndAnnouncedToEverySession() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))
        let first = try await running.openSession()
        let second = try await running.openSession()
        let inboxes = [first, second].map { Recording.following($0.openNotificationStream()) }

        running["a"].change { $0.tools.append(FakeUpstreamScript.tool("added")) }
        #expect(running["a"].notify(MCPMethod.toolsListChanged))

        for inbox in inboxes {
            #expect(await inbox.first(where: Self.isToolsChanged) != nil, "every session hears it")
        }
        #expect(running["a"].requests(MCPMethod.toolsList).count == 2, "the tools were listed again")
        let tools = await running.send(MCPMethod.toolsList, id: .int(1), in: first)
        let names = (tools.result?["tools"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        #expect(Set(names) == ["a__echo", "a__added"])
        #expect(inboxes.allSatisfy { !$0.elements.contains { $0.method == MCPMethod.promptsListChanged } })
        await running.stop()
    }

    @Test func aPromptListChangeIsAnnouncedAsSuch() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))
        let session = try await running.openSession()
        let inbox = Recording.following(session.openNotificationStream())

        running["a"].change { $0.prompts = [FakeUpstreamScript.prompt("greet")] }
        running["a"].notify(MCPMethod.promptsListChanged)

        #expect(await inbox.first { $0.method == MCPMethod.promptsListChanged } != nil)
        #expect(running.gateway.snapshot.catalog.promptRoutes["a__greet"] != nil)
        await running.stop()
    }

    @Test func aServerAddedOrRemovedIsAnnouncedToEverySession() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))
        let sessions = [try await running.openSession(), try await running.openSession()]
        let inboxes = sessions.map { Recording.following($0.openNotificationStream()) }

        try await running.gateway.lifecycle.addServer(stdioSpec("b"))
        #expect(await running.connected("b"))
        for inbox in inboxes {
            #expect(await inbox.count(atLeast: 1, where: Self.isToolsChanged), "b's tools arrived")
        }
        #expect(running.gateway.snapshot.catalog.routeTool("b__echo") != nil)

        #expect(try await running.gateway.lifecycle.removeServer("b"))
        for inbox in inboxes {
            #expect(await inbox.count(atLeast: 2, where: Self.isToolsChanged), "b's tools left")
        }
        #expect(running.gateway.snapshot.catalog.routeTool("b__echo") == nil)
        await running.stop()
    }

    @Test func aSessionOpenedLaterHearsNothingOfEarlierChanges() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))
        running["a"].change { $0.tools.append(FakeUpstreamScript.tool("added")) }
        running["a"].notify(MCPMethod.toolsListChanged)
        #expect(await running.until { $0.catalog.routeTool("a__added") != nil })
        let session = try await running.openSession()
        let inbox = Recording.following(session.openNotificationStream())
        // A change after the session opened is the first thing it hears.
        running["a"].change { $0.tools.removeAll { $0["name"] == "added" } }
        running["a"].notify(MCPMethod.toolsListChanged)
        #expect(await inbox.first(where: Self.isToolsChanged) != nil)
        #expect(inbox.elements.count == 1)
        await running.stop()
    }
}
