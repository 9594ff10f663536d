import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// A client of one server alone (`/servers/{id}/mcp`) sees that server's own names, reaches only it, and hears
/// only of its changes.
@Suite struct ServerScopeTests {
    private static func names(_ answer: Answer, _ key: String = "tools") -> Set<String> {
        Set((answer.result?[key]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue })
    }

    private static func running() -> RunningGateway {
        let channels = FakeUpstreams()
        channels["b"].change { $0.tools = [FakeUpstreamScript.tool("other")] }
        return RunningGateway([stdioSpec("a"), stdioSpec("b")], channels: channels)
    }

    @Test func itListsAndCallsTheServersOwnNamesAndNothingElse() async throws {
        let running = Self.running()
        #expect(await running.connected("a", "b"))
        let alone = try await running.openSession(scope: .server("a"))
        #expect(Self.names(await running.send(MCPMethod.toolsList, in: alone)) == ["echo"])
        let call = await running.send(
            MCPMethod.toolsCall,
            ["name": "echo", "arguments": ["x": 1]],
            id: .int(2),
            in: alone
        )
        #expect(call.result != nil)
        #expect(running["a"].requests(MCPMethod.toolsCall).first?.params?["name"] == "echo")
        let foreign = await running.send(MCPMethod.toolsCall, ["name": "other"], id: .int(3), in: alone)
        #expect(foreign.error?.message == "Unknown tool: other")
        let prefixed = await running.send(MCPMethod.toolsCall, ["name": "a__echo"], id: .int(4), in: alone)
        #expect(prefixed.error != nil, "the prefix is the aggregate's, not the server's")
        let everything = try await running.openSession()
        #expect(Self.names(await running.send(MCPMethod.toolsList, in: everything)) == ["a__echo", "b__other"])
        await running.stop()
    }

    @Test func onlyItsOwnServersChangesAreAnnouncedToIt() async throws {
        let running = Self.running()
        #expect(await running.connected("a", "b"))
        let alone = try await running.openSession(scope: .server("a"))
        let everything = try await running.openSession()
        let aloneInbox = Recording.following(alone.openNotificationStream())
        let everythingInbox = Recording.following(everything.openNotificationStream())

        running["b"].change { $0.tools.append(FakeUpstreamScript.tool("more")) }
        #expect(running["b"].notify(MCPMethod.toolsListChanged))
        #expect(await everythingInbox.first(where: { $0.method == MCPMethod.toolsListChanged }) != nil)
        #expect(!aloneInbox.elements.contains { $0.method == MCPMethod.toolsListChanged }, "b's change is not a's")

        running["a"].change { $0.tools.append(FakeUpstreamScript.tool("added")) }
        #expect(running["a"].notify(MCPMethod.toolsListChanged))
        #expect(await aloneInbox.first(where: { $0.method == MCPMethod.toolsListChanged }) != nil)
        #expect(Self.names(await running.send(MCPMethod.toolsList, in: alone)) == ["echo", "added"])
        await running.stop()
    }

    @Test func aServerThatIsDownFailsItsClientsCallsAtOnce() async throws {
        let running = Self.running()
        #expect(await running.connected("a", "b"))
        let alone = try await running.openSession(scope: .server("a"))
        #expect(running.channels.crash("a"))
        #expect(await running.until { !($0.links["a"]?.state.isConnected ?? true) })
        let call = await running.send(MCPMethod.toolsCall, ["name": "echo"], id: .int(2), in: alone)
        #expect(call.error?.message.contains("a") == true)
        #expect(Self.names(await running.send(MCPMethod.toolsList, id: .int(3), in: alone)).isEmpty)
        await running.stop()
    }
}
