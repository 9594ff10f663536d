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
                    let result = await gateway.registry.update { snapshot -> Int in
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
    @Test func onlyAChangeOfTheMergedInputsRebuildsTheAggregate() async {
        let spec = ServerSpec(id: "a", transport: .stdio(command: "x", args: [], env: [:], cwd: nil))
        let gateway = Gateway(config: GatewayConfig(servers: [spec]), logger: Logger(label: "test"))
        let tools: [JSONObject] = [["name": "x", "inputSchema": ["type": "object"]]]
        await gateway.registry.update { snapshot in
            snapshot.links["a"]?.state = .connected(since: .now)
            snapshot.links["a"]?.catalog = ServerCatalog(tools: tools)
        }
        let merged = gateway.snapshot.catalog
        #expect(merged.toolRoutes["a__x"] != nil)

        await gateway.registry.update { $0.links["a"]?.state = .connected(since: .now) }
        // Equal lists, built apart.
        await gateway.registry.update { $0.links["a"]?.catalog = ServerCatalog(tools: tools) }
        #expect(gateway.snapshot.catalog === merged)

        await gateway.registry.update { $0.links["a"]?.catalog = ServerCatalog(tools: tools + [["name": "y"]]) }
        #expect(gateway.snapshot.catalog !== merged)
        #expect(gateway.snapshot.catalog.toolRoutes["a__y"] != nil)

        await gateway.registry.update { $0.links["a"]?.state = .disconnected }
        #expect(gateway.snapshot.catalog.tools.isEmpty)
    }

    /// Writers on many threads each move one server to its next attempt: subscribers must see every attempt,
    /// in the order the writer applied them, and the sequence numbers must rise with them. (A writer that
    /// applied another's change and announced it after releasing its lock let a later state out first.)
    @Test func eventsComeInTheOrderTheChangesWereApplied() async {
        let spec = ServerSpec(id: "a", transport: .stdio(command: "x", args: [], env: [:], cwd: nil), disabled: true)
        let gateway = Gateway(config: GatewayConfig(servers: [spec]), logger: Logger(label: "test"))
        let events = gateway.events.subscribe()
        let writers = 8
        let changes = 100
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<writers {
                group.addTask {
                    for _ in 0..<changes {
                        await gateway.registry.update { snapshot in
                            guard var link = snapshot.links["a"] else { return }
                            if case .connecting(let attempt) = link.state {
                                link.state = .connecting(attempt: attempt + 1)
                            } else {
                                link.state = .connecting(attempt: 1)
                            }
                            snapshot.links["a"] = link
                        }
                    }
                }
            }
        }
        var attempts: [Int] = []
        var sequence: [UInt64] = []
        for await numbered in events {
            guard case .serverState(let status) = numbered.event, case .connecting(let attempt) = status.state else {
                continue
            }
            attempts.append(attempt)
            sequence.append(numbered.sequence)
            if attempts.count == writers * changes { break }
        }
        let lateAttempt = zip(attempts, attempts.dropFirst()).first { $0 + 1 != $1 }
        #expect(attempts.count == writers * changes && lateAttempt == nil, "announced out of order: \(lateAttempt!)")
        let lateNumber = zip(sequence, sequence.dropFirst()).first { $0 + 1 != $1 }
        #expect(sequence.first == 1 && lateNumber == nil, "numbered out of order: \(lateNumber!)")
    }

    @Test func aChangeIsVisibleToReadersWhenUpdateReturns() async {
        let gateway = Gateway(config: GatewayConfig(servers: []), logger: Logger(label: "test"))
        await gateway.registry.update { $0.order.append("one") }
        #expect(gateway.snapshot.order == ["one"])
    }
}
