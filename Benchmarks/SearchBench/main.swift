import Foundation
import YrdenSearch

// yrden-search-bench [corpus.json [queries.json]]: the tool search index of search mode, measured in process.
// Builds a 10,000-tool index from the reference servers' tools replicated over synthetic servers, then measures
// search latency over the 50 quality queries (5,000 searches as search mode runs them, each timed alone), the
// time to add a server of 500 tools (replace, 20 runs) and to replace those 500 by another 500 (a changed
// tools/list). Prints the misses of the quality checks (the 50 needs, and the held-out needs of
// heldout-queries.json beside queries.json) on stderr and one RESULT line on stdout. Paths default to the
// fixtures, from the repository root; build it in release mode (`swift build -c release --product
// yrden-search-bench`). Benchmarks/run.sh runs it and holds it to the budgets of issue 13: search p50 <= 1 ms,
// p99 <= 5 ms, adding 500 tools <= 20 ms.
let arguments = CommandLine.arguments
let corpusPath = arguments.count > 1 ? arguments[1] : "Tests/Fixtures/search/corpus.json"
let queriesPath =
    arguments.count > 2
    ? arguments[2]
    : URL(fileURLWithPath: corpusPath).deletingLastPathComponent().appendingPathComponent("queries.json").path
let heldOutPath = URL(fileURLWithPath: queriesPath).deletingLastPathComponent()
    .appendingPathComponent("heldout-queries.json").path
let corpus = try load(CorpusFile.self, from: corpusPath).tools
let queries = try load(QueriesFile.self, from: queriesPath).queries
let heldOut = try load(HeldOutFile.self, from: heldOutPath).queries

let indexSize = 10_000
let searches = 5_000
let addedTools = 500
let addRuns = 20

let clock = ContinuousClock()
func microseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
}
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

var fleet = SyntheticFleet(corpus: corpus, seed: 13)
var index = ToolSearchIndex()
let fleetTools = fleet.tools(indexSize - corpus.count, from: corpus)
let servers = Dictionary(grouping: corpus + fleetTools, by: \.server).sorted { $0.key < $1.key }
let buildStart = clock.now
for (server, tools) in servers { index.replace(server: server, tools: tools) }
let buildMilliseconds = microseconds(clock.now - buildStart) / 1000
precondition(index.count == indexSize, "the index holds \(index.count) tools, not \(indexSize)")

/// Each query's expected tool among the top three of the real corpus alone: the quality test's figure.
var quality = ToolSearchIndex()
for (server, tools) in Dictionary(grouping: corpus, by: \.server) { quality.replace(server: server, tools: tools) }
var top3 = 0
for query in queries {
    let hits = quality.search(query.query, limit: 5)
    if hits.prefix(3).contains(where: { $0.key == ToolKey(server: query.server, name: query.tool) }) {
        top3 += 1
    } else {
        let ranked = hits.map { "\($0.key) \(String(format: "%.2f", $0.score))" }.joined(separator: ", ")
        FileHandle.standardError.write(
            Data("miss: \"\(query.query)\" wants \(query.server)/\(query.tool); got \(ranked)\n".utf8)
        )
    }
}

/// The held-out needs' figure: any of each need's tools among the top three, and how many came back empty.
var heldOutTop3 = 0
var heldOutEmpty = 0
for query in heldOut {
    let hits = quality.searchOrNearest(query.query, limit: 5).hits
    if hits.isEmpty { heldOutEmpty += 1 }
    let wanted = query.tools.map { ToolKey(server: $0.server, name: $0.tool) }
    if hits.prefix(3).contains(where: { wanted.contains($0.key) }) {
        heldOutTop3 += 1
    } else {
        let ranked = hits.map { "\($0.key) \(String(format: "%.2f", $0.score))" }.joined(separator: ", ")
        FileHandle.standardError.write(Data("held-out miss: \"\(query.query)\"; got \(ranked)\n".utf8))
    }
}

var found = 0
for query in queries { found += index.searchOrNearest(query.query, limit: 10).hits.count }  // warm-up
var latencies: [Double] = []
latencies.reserveCapacity(searches)
while latencies.count < searches {
    for query in queries where latencies.count < searches {
        let start = clock.now
        let hits = index.searchOrNearest(query.query, limit: 10).hits
        latencies.append(microseconds(clock.now - start))
        found += hits.count
    }
}
latencies.sort()

/// `addedTools` tools of one new server, unlike any in the index (their names carry their synthetic server's).
var addFleet = SyntheticFleet(corpus: corpus, seed: 42)
@MainActor func newServer(_ server: String) -> [SearchableTool] {
    addFleet.tools(addedTools, from: corpus).map { tool in
        var tool = tool
        tool.name = "\(tool.server)_\(tool.name)"
        tool.server = server
        return tool
    }
}
var addTimes: [Double] = []
var updateTimes: [Double] = []
for run in 0..<addRuns {
    let server = "bench-added-\(run)"
    let tools = newServer(server)
    let changed = newServer(server)
    var start = clock.now
    let added = index.replace(server: server, tools: tools)
    addTimes.append(microseconds(clock.now - start) / 1000)
    start = clock.now
    let updated = index.replace(server: server, tools: changed)
    updateTimes.append(microseconds(clock.now - start) / 1000)
    precondition(added == addedTools && updated == addedTools, "added \(added) and \(updated) of \(addedTools) tools")
    index.remove(server: server)
}
addTimes.sort()
updateTimes.sort()
precondition(index.count == indexSize, "removing the added servers left \(index.count) tools")

func format(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
print(
    "RESULT search_p50_us=\(format(percentile(latencies, 0.5), 1)) search_p99_us=\(format(percentile(latencies, 0.99), 1))"
        + " add500_ms_p50=\(format(percentile(addTimes, 0.5), 2)) add500_ms_max=\(format(addTimes.last ?? 0, 2))"
        + " update500_ms_p50=\(format(percentile(updateTimes, 0.5), 2)) build_ms=\(format(buildMilliseconds, 0))"
        + " tools=\(index.count) searches=\(latencies.count) quality_top3=\(top3)/\(queries.count)"
        + " heldout_top3=\(heldOutTop3)/\(heldOut.count) heldout_empty=\(heldOutEmpty) hits=\(found)"
)
