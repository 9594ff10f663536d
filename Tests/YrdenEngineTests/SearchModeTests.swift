import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// What an agent gets from `search_tools`: the tool that serves a plainly worded need, and never an empty answer
/// while the profile has tools (weak matches come back marked as such).
@Suite struct SearchModeTests {
    private static func running() async -> RunningGateway {
        let channels = FakeUpstreams()
        channels["cal"].change {
            $0.tools = [
                FakeUpstreamScript.tool("create_event", description: "Create a calendar event"),
                FakeUpstreamScript.tool("list_events", description: "List upcoming calendar events"),
            ]
        }
        channels["tasks"].change {
            $0.tools = [
                FakeUpstreamScript.tool("add_todo", description: "Add an item to the todo list"),
                FakeUpstreamScript.tool("complete_todo", description: "Mark a todo item as done"),
            ]
        }
        channels["ci"].change {
            $0.tools = [
                FakeUpstreamScript.tool("ci_status", description: "Get the CI status of a branch"),
                FakeUpstreamScript.tool("rerun_job", description: "Retry a failed job"),
            ]
        }
        channels["files"].change {
            $0.tools = [
                FakeUpstreamScript.tool("read_file", description: "Read a file from disk"),
                FakeUpstreamScript.tool("write_file", description: "Write text to a file"),
            ]
        }
        let running = RunningGateway(
            [stdioSpec("cal"), stdioSpec("tasks"), stdioSpec("ci"), stdioSpec("files")],
            channels: channels
        )
        await running.gateway.registry.setProfiles([
            ProfileSpec(name: "assistant", toolMode: .search),
            ProfileSpec(name: "onlyFiles", servers: ["files"], toolMode: .search),
        ])
        return running
    }

    private static func search(
        _ query: String,
        _ running: RunningGateway,
        _ session: DownstreamSession
    ) async -> (names: [String], match: String?, text: String?) {
        let answer = await running.send(
            MCPMethod.toolsCall,
            ["name": "search_tools", "arguments": ["query": .string(query)]],
            id: .int(2),
            in: session
        )
        let content = answer.result?["structuredContent"]
        let names = (content?["tools"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        let text = answer.result?["content"]?.arrayValue?.first?["text"]?.stringValue
        return (names, content?["match"]?.stringValue, text)
    }

    @Test func plainNeedsFindTheirToolAmongTheFirstThree() async throws {
        let running = await Self.running()
        #expect(await running.connected("cal", "tasks", "ci", "files"))
        let session = try await running.openSession(scope: .profile("assistant"))
        for (need, wanted) in [
            ("schedule a meeting with Alice tomorrow", "cal__create_event"),
            ("remind me to buy milk on Friday", "tasks__add_todo"),
            ("is the build on main green?", "ci__ci_status"),
        ] {
            let found = await Self.search(need, running, session)
            #expect(found.names.prefix(3).contains(wanted), "\(need): \(found.names)")
            #expect(found.match == "strong")
        }
        await running.stop()
    }

    @Test func noMatchStillAnswersTheProfilesToolsMarkedWeak() async throws {
        let running = await Self.running()
        #expect(await running.connected("cal", "tasks", "ci", "files"))
        let session = try await running.openSession(scope: .profile("onlyFiles"))
        for query in ["xyzzy plugh", "what can you do for me", "schedule a meeting"] {
            let found = await Self.search(query, running, session)
            #expect(found.names == ["files__read_file", "files__write_file"], "\(query)")
            #expect(found.match == "weak")
            #expect(found.text?.hasPrefix("No tool matches") == true, "\(found.text ?? "")")
        }
        let matched = await Self.search("writing", running, session)
        #expect(matched.names.first == "files__write_file" && matched.match == "strong")
        await running.stop()
    }
}
