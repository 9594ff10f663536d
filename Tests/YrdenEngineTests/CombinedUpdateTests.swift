import Logging
import Testing
import YrdenConfig
import YrdenProtocol

@testable import YrdenEngine

/// Writers racing to change the snapshot: every change is applied exactly once, in some order, and each
/// writer gets its own change's result back, however the changes were combined into rebuilds.
@Suite struct CombinedUpdateTests {
    @Test func concurrentChangesAreAllAppliedAndEachReturnsItsOwnResult() async {
        let gateway = Gateway(config: GatewayConfig(servers: []), logger: Logger(label: "test"))
        let writers = 200
        let results = await withTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<writers {
                group.addTask {
                    let result = gateway.update { snapshot -> Int in
                        snapshot.order.append("writer\(index)")
                        return index * 10
                    }
                    return (index, result)
                }
            }
            return await group.reduce(into: [(Int, Int)]()) { $0.append($1) }
        }
        #expect(results.count == writers)
        #expect(results.allSatisfy { $0.1 == $0.0 * 10 })
        let order = gateway.snapshot.order
        #expect(order.count == writers)
        #expect(Set(order) == Set((0..<writers).map { "writer\($0)" }))
    }

    /// A change that leaves every connected server's lists, prefix and filter as they were keeps the merged
    /// catalog as it is, without merging again; a change of a list merges anew.
    @Test func onlyAChangeOfTheMergedInputsRebuildsTheAggregate() {
        let spec = ServerSpec(id: "a", transport: .stdio(command: "x", args: [], env: [:], cwd: nil))
        let gateway = Gateway(config: GatewayConfig(servers: [spec]), logger: Logger(label: "test"))
        let tools: [JSONObject] = [["name": "x", "inputSchema": ["type": "object"]]]
        gateway.update { snapshot in
            snapshot.links["a"]?.state = .connected(since: .now)
            snapshot.links["a"]?.catalog = ServerCatalog(tools: tools)
        }
        let merged = gateway.snapshot.catalog
        #expect(merged.toolRoutes["a__x"] != nil)

        gateway.update { $0.links["a"]?.state = .connected(since: .now) }
        gateway.update { $0.links["a"]?.catalog = ServerCatalog(tools: tools) }  // equal lists, built apart
        #expect(gateway.snapshot.catalog === merged)

        gateway.update { $0.links["a"]?.catalog = ServerCatalog(tools: tools + [["name": "y"]]) }
        #expect(gateway.snapshot.catalog !== merged)
        #expect(gateway.snapshot.catalog.toolRoutes["a__y"] != nil)

        gateway.update { $0.links["a"]?.state = .disconnected }
        #expect(gateway.snapshot.catalog.tools.isEmpty)
    }

    @Test func aChangeIsVisibleToReadersWhenUpdateReturns() {
        let gateway = Gateway(config: GatewayConfig(servers: []), logger: Logger(label: "test"))
        gateway.update { $0.order.append("one") }
        #expect(gateway.snapshot.order == ["one"])
    }
}
