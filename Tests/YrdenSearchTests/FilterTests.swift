import Testing

@testable import YrdenSearch

/// One index serves every profile: a profile's restriction is a filter over the candidates of each search.
@Suite struct FilterTests {
    private let index = makeIndex(
        ["a", "b", "c", "d"].map { server in
            (
                server,
                (0..<5).map { tool(server, "list_items_\($0)", "Lists items" + String(repeating: " now", count: $0)) }
            )
        }
    )

    @Test func excludedToolsGiveWayToTheNextBest() {
        let all = index.search("list items", limit: 40)
        #expect(all.count == 20)
        let onlyC = index.search("list items", limit: 3, where: { $0.server == "c" })
        #expect(onlyC.map(\.key) == all.filter { $0.key.server == "c" }.prefix(3).map(\.key))
        #expect(onlyC.map(\.score) == all.filter { $0.key.server == "c" }.prefix(3).map(\.score))
    }

    @Test func aFilterThatRejectsEverythingFindsNothing() {
        #expect(index.search("list items", limit: 10, where: { _ in false }).isEmpty)
    }

    @Test func theFilterIsAskedOnlyAboutCandidates() {
        var asked: [ToolKey] = []
        let index = makeIndex([
            ("s", [tool("s", "alpha", "First"), tool("s", "beta", "Second"), tool("s", "gamma", "Third")])
        ])
        _ = index.search("second", limit: 5) { key in
            asked.append(key)
            return true
        }
        #expect(asked == [ToolKey(server: "s", name: "beta")])
    }
}
