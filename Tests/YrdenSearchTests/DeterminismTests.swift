import Testing

@testable import YrdenSearch

/// The same tools and query give the same list on every run, whatever order the servers arrived in.
@Suite struct DeterminismTests {
    @Test func equalScoresAreOrderedByServerThenName() {
        let servers = ["zeta", "alpha", "mid"].map { server in
            (server, ["b_tool", "a_tool"].map { tool(server, $0, "Sends a message") })
        }
        let index = makeIndex(servers)
        let hits = index.search("send message", limit: 10)
        #expect(Set(hits.map(\.score)).count == 1)
        #expect(
            hits.map(\.key.description) == [
                "alpha/a_tool", "alpha/b_tool", "mid/a_tool", "mid/b_tool", "zeta/a_tool", "zeta/b_tool",
            ]
        )
        #expect(index.names("send message", limit: 3) == ["alpha/a_tool", "alpha/b_tool", "mid/a_tool"])
    }

    @Test func theOrderServersArriveInChangesNothing() {
        let servers = (0..<6).map { n in
            ("server\(n)", (0..<8).map { tool("server\(n)", "tool_\($0)", "Reads \($0) files and lists \(n) items") })
        }
        let forward = makeIndex(servers)
        let backward = makeIndex(servers.reversed())
        for query in ["read files", "list items", "tool 3", "files items"] {
            #expect(forward.search(query, limit: 20) == backward.search(query, limit: 20))
        }
    }

    @Test func theIndexIsAValueReadersCanShare() {
        func requireSendable<T: Sendable>(_: T.Type) {}
        requireSendable(ToolSearchIndex.self)
        requireSendable(SearchHit.self)
        var original = makeIndex([("s", [tool("s", "keep", "Stays")])])
        let copy = original
        original.replace(server: "s", tools: [])
        #expect(copy.names("stays") == ["s/keep"])
        #expect(original.names("stays").isEmpty)
    }
}
