import Logging
import Testing
import YrdenConfig

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

    @Test func aChangeIsVisibleToReadersWhenUpdateReturns() {
        let gateway = Gateway(config: GatewayConfig(servers: []), logger: Logger(label: "test"))
        gateway.update { $0.order.append("one") }
        #expect(gateway.snapshot.order == ["one"])
    }
}
