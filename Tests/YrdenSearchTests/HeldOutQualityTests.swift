import Foundation
import Testing

@testable import YrdenSearch

/// The quality check on needs written apart from the ranking: `heldout-queries.json` was written before its
/// author read the corpus's tools or the thesaurus (its `about` says how). Its first run found 42 of 55, one
/// empty; the thesaurus was widened after that run, so the set is no longer unseen, and a change to the ranking
/// should be judged on new needs too. At least 90 % must find one of their tools in the top three, and none may
/// come back empty: an agent told "no tool matches" gives up on a tool that exists.
@Suite struct HeldOutQualityTests {
    @Test func heldOutNeedsFindTheirToolInTheTopThreeAndNeverNothing() throws {
        let corpus = try Fixture.corpus()
        let queries = try Fixture.heldOutQueries()
        #expect(queries.count >= 50)

        var index = ToolSearchIndex()
        for (server, tools) in Dictionary(grouping: corpus, by: \.server) {
            index.replace(server: server, tools: tools)
        }
        var misses: [String] = []
        var empty: [String] = []
        for query in queries {
            let hits = index.searchOrNearest(query.query, limit: 5).hits
            if hits.isEmpty { empty.append(query.query) }
            guard !hits.prefix(3).contains(where: { query.keys.contains($0.key) }) else { continue }
            let got = hits.map { "\($0.key) \(String(format: "%.2f", $0.score))" }.joined(separator: ", ")
            misses.append("\"\(query.query)\" wants \(query.keys.map(\.description)), got \(got)")
        }
        let found = queries.count - misses.count
        print(
            "held-out search quality: \(found)/\(queries.count) in the top 3"
                + misses.map { "\n  miss: \($0)" }.joined()
        )
        #expect(found * 10 >= queries.count * 9, "\(misses.joined(separator: "\n"))")
        #expect(empty.isEmpty, "no tool found for \(empty)")
    }
}
