import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// Pages of the merged lists are serialized once per catalog generation and shared: a listing after a change
/// shows the change, and the cache never holds an older generation's pages.
@Suite struct ListPageCacheTests {
    private static func names(_ answer: Answer) -> Set<String> {
        Set((answer.result?["tools"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue })
    }

    @Test func everyListingOfAGenerationSharesItsBytesAndAChangeIsListedAnew() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.connected("a"))
        let first = try await running.openSession()
        let second = try await running.openSession()

        let one = try #require(await running.send(MCPMethod.toolsList, id: .int(1), in: first).response)
        let two = try #require(await running.send(MCPMethod.toolsList, id: .string("x"), in: second).response)
        let encoded = try #require(one.encodedResult)
        #expect(encoded.bytes == (try one.outcome.get()).serialized(), "the bytes are the result's own serialization")
        #expect(two.encodedResult?.bytes == encoded.bytes)
        #expect(running.gateway.views.listPages.count == 1)
        #expect(JSONRPCMessage.response(two).serialized() == JSONRPCMessage.response(two).json.serialized())

        running["a"].change { $0.tools.append(FakeUpstreamScript.tool("added")) }
        #expect(running["a"].notify(MCPMethod.toolsListChanged))
        #expect(await running.until { $0.catalog.toolRoutes["a__added"] != nil })
        let after = await running.send(MCPMethod.toolsList, id: .int(3), in: first)
        #expect(Self.names(after) == ["a__echo", "a__added"])
        #expect(after.response?.encodedResult?.bytes == after.result?.serialized())
        #expect(running.gateway.views.listPages.count == 1, "the older generation's page is gone")
        await running.stop()
    }
}
