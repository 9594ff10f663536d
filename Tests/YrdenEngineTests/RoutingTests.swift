import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// Each client request reaches the one server that owns what it names, under the server's own name and a
/// fresh upstream id, and its answer comes back under the client's id.
@Suite struct RoutingTests {
    private static let greet = FakeUpstreamScript.prompt("greet")
    private static let readme = FakeUpstreamScript.resource("file:///b/readme")

    /// `a` offers `echo`; `b` offers `echo`, the prompt `greet` and the resource `file:///b/readme`.
    private func twoServers() async throws -> (RunningGateway, DownstreamSession) {
        let channels = FakeUpstreams()
        channels["b"].change {
            $0.prompts = [Self.greet]
            $0.resources = [Self.readme]
        }
        channels["b"].handle(MCPMethod.promptsGet) { call in
            .result(["messages": [], "description": .string("prompt \(call.params?["name"]?.stringValue ?? "")")])
        }
        channels["b"].handle(MCPMethod.resourcesRead) { call in
            .result(["contents": [["uri": call.params?["uri"] ?? .null, "text": "read by b"]]])
        }
        channels["b"].handle(MCPMethod.completionComplete) { call in
            .result(["completion": ["values": [.string("for \(call.params?["ref"]?["name"]?.stringValue ?? "")")]]])
        }
        let running = RunningGateway([stdioSpec("a"), stdioSpec("b")], channels: channels)
        #expect(await running.connected("a", "b"))
        return (running, try await running.openSession())
    }

    @Test func aToolCallReachesItsServerRenamedUnderAFreshIDAndAnswersUnderTheClientsID() async throws {
        let (running, session) = try await twoServers()
        let answer = await running.call("a__echo", ["text": "hi"], id: .string("client-7"), in: session)
        let response = try #require(answer.response)
        #expect(response.id == .string("client-7"))
        #expect(answer.result?["structuredContent"]?["arguments"] == ["text": "hi"])
        #expect(answer.result?["structuredContent"]?["tool"] == "echo")

        let forwarded = try #require(running["a"].requests(MCPMethod.toolsCall).first)
        #expect(forwarded.params?["name"] == "echo", "the server sees its own tool name")
        #expect(forwarded.params?["arguments"] == ["text": "hi"])
        #expect(forwarded.id != .string("client-7"), "the upstream id is the gateway's own")
        #expect(running["b"].requests(MCPMethod.toolsCall).isEmpty, "only the owner is called")
        await running.stop()
    }

    @Test func promptsResourcesAndCompletionsReachTheirOwner() async throws {
        let (running, session) = try await twoServers()

        let prompt = await running.send(MCPMethod.promptsGet, ["name": "b__greet"], id: .int(1), in: session)
        #expect(prompt.response?.id == .int(1))
        #expect(prompt.result?["description"] == "prompt greet")
        #expect(running["b"].requests(MCPMethod.promptsGet).first?.params?["name"] == "greet")

        let read = await running.send(MCPMethod.resourcesRead, ["uri": "file:///b/readme"], id: .int(2), in: session)
        #expect(read.result?["contents"]?.arrayValue?.first?["text"] == "read by b")
        #expect(running["b"].requests(MCPMethod.resourcesRead).first?.params?["uri"] == "file:///b/readme")

        let completion = await running.send(
            MCPMethod.completionComplete,
            ["ref": ["type": "ref/prompt", "name": "b__greet"], "argument": ["name": "who", "value": "w"]],
            id: .int(3),
            in: session
        )
        #expect(completion.result?["completion"]?["values"] == ["for greet"])
        let forwarded = try #require(running["b"].requests(MCPMethod.completionComplete).first)
        #expect(forwarded.params?["ref"]?["name"] == "greet", "the prompt is named as its server knows it")
        #expect(forwarded.params?["argument"] == ["name": "who", "value": "w"])

        #expect(running["a"].requests(MCPMethod.promptsGet).isEmpty)
        #expect(running["a"].requests(MCPMethod.resourcesRead).isEmpty)
        #expect(running["a"].requests(MCPMethod.completionComplete).isEmpty)
        await running.stop()
    }

    @Test func aNameNoServerOffersIsAnInvalidParamsErrorAndReachesNoServer() async throws {
        let (running, session) = try await twoServers()
        let answer = await running.call("c__echo", in: session)
        #expect(answer.error?.code == -32602)
        #expect(answer.error?.message.contains("c__echo") == true)
        #expect(
            running["a"].requests(MCPMethod.toolsCall).isEmpty && running["b"].requests(MCPMethod.toolsCall).isEmpty
        )
        await running.stop()
    }
}
