import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// Progress goes to the request that asked for it, under the client's own token, even when two sessions
/// chose the same token for calls running at the same time.
@Suite struct ProgressRoutingTests {
    @Test func twoSessionsWithTheSameTokenEachGetOnlyTheirOwnProgress() async throws {
        let channels = FakeUpstreams()
        channels["a"].handleTool("echo") { call in
            let who = call.arguments?["who"]?.stringValue ?? "?"
            call.progress(1, total: 2, message: who)
            // Both calls are in flight before either finishes, so their progress interleaves.
            _ = await call.upstream.received.count(atLeast: 2) { $0.method == MCPMethod.toolsCall }
            call.progress(2, total: 2, message: who)
            return .result(["content": [], "structuredContent": ["who": .string(who)]])
        }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        let sessions = [try await running.openSession(), try await running.openSession()]
        let relayed = [Recording<JSONRPCMessage>(), Recording<JSONRPCMessage>()]

        async let one = running.call(
            "a__echo",
            ["who": "one"],
            progressToken: "tok",
            in: sessions[0],
            related: { relayed[0].append($0) }
        )
        async let two = running.call(
            "a__echo",
            ["who": "two"],
            progressToken: "tok",
            in: sessions[1],
            related: { relayed[1].append($0) }
        )
        let answers = await [one, two]

        for (index, who) in ["one", "two"].enumerated() {
            #expect(answers[index].result?["structuredContent"]?["who"] == .string(who))
            #expect(await relayed[index].count(atLeast: 2))
            let progress = relayed[index].elements.compactMap { message -> JSONValue? in
                guard case .notification(let notification) = message, notification.method == MCPMethod.progress
                else { return nil }
                return notification.params
            }
            #expect(progress.count == 2, "\(who) got \(relayed[index].elements)")
            #expect(progress.allSatisfy { $0["progressToken"] == "tok" }, "the client's own token")
            #expect(progress.allSatisfy { $0["message"] == .string(who) }, "only its own call's progress")
            #expect(progress.map { $0["progress"]?.doubleValue } == [1, 2])
        }
        let tokens = running["a"].requests(MCPMethod.toolsCall).compactMap { $0.params?["_meta"]?["progressToken"] }
        #expect(Set(tokens).count == 2, "the upstream saw a token per call, not the clients' shared one")
        #expect(!tokens.contains("tok"))
        await running.stop()
    }

    @Test func aCallWithoutATokenAsksTheUpstreamForNoProgress() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))
        let session = try await running.openSession()
        let relayed = Recording<JSONRPCMessage>()
        _ = await running.call("a__echo", in: session, related: { relayed.append($0) })
        let forwarded = try #require(running["a"].requests(MCPMethod.toolsCall).first)
        #expect(forwarded.params?["_meta"]?["progressToken"] == nil)
        #expect(relayed.elements.isEmpty)
        await running.stop()
    }
}
