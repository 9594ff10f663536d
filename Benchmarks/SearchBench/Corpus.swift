import Foundation
import YrdenSearch

/// `Tests/Fixtures/search/corpus.json`: the reference servers' tool definitions.
struct CorpusFile: Decodable {
    struct Server: Decodable {
        var server: String
        var tools: [Tool]
    }
    struct Tool: Decodable {
        var name: String
        var title: String?
        var description: String?
        var arguments: [Argument]
    }
    struct Argument: Decodable {
        var name: String
        var description: String?
    }
    var servers: [Server]

    var tools: [SearchableTool] {
        servers.flatMap { server in
            server.tools.map { tool in
                SearchableTool(
                    server: server.server,
                    name: tool.name,
                    title: tool.title,
                    description: tool.description,
                    argumentNames: tool.arguments.map(\.name),
                    argumentDescriptions: Dictionary(
                        tool.arguments.compactMap { argument in argument.description.map { (argument.name, $0) } },
                        uniquingKeysWith: { first, _ in first }
                    )
                )
            }
        }
    }
}

/// `Tests/Fixtures/search/queries.json`: needs phrased as an agent would, each with the tool that meets it.
struct QueriesFile: Decodable {
    struct Query: Decodable {
        var query: String
        var server: String
        var tool: String
    }
    var queries: [Query]
}

/// `Tests/Fixtures/search/heldout-queries.json`: needs written before the corpus was read, each with the tools
/// that serve it (any of them counts).
struct HeldOutFile: Decodable {
    struct Query: Decodable {
        struct Tool: Decodable {
            var server: String
            var tool: String
        }
        var query: String
        var tools: [Tool]
    }
    var queries: [Query]
}

func load<T: Decodable>(_ type: T.Type, from path: String) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
}

/// A fleet of synthetic servers made from the real corpus, so its vocabulary and text lengths are realistic while
/// no two servers are alike: each copy of a real server gets its own name, and each of its tools a varied name, a
/// team or product word in its title, and a sentence of corpus words appended to its description.
struct SyntheticFleet {
    private var random: SplitMix64
    private let words: [String]
    private let teams = [
        "acme", "billing", "payments", "search", "infra", "mobile", "growth", "data", "platform", "security",
        "support", "identity", "ledger", "catalog", "media", "analytics", "checkout", "inventory", "ops", "edge",
    ]
    private let stages = ["prod", "staging", "dev", "eu", "us", "apac", "internal", "legacy", "beta", "v2"]

    init(corpus: [SearchableTool], seed: UInt64) {
        random = SplitMix64(seed: seed)
        var vocabulary = Set<String>()
        for tool in corpus {
            for word in (tool.description ?? "").split(whereSeparator: { !$0.isLetter }) where word.count > 3 {
                vocabulary.insert(word.lowercased())
            }
        }
        words = vocabulary.sorted()
    }

    /// `count` tools: copies of the corpus's servers, each under a server name of its own.
    mutating func tools(_ count: Int, from corpus: [SearchableTool], serverPrefix: String = "") -> [SearchableTool] {
        let servers = Dictionary(grouping: corpus, by: \.server).sorted { $0.key < $1.key }
        var result: [SearchableTool] = []
        var copy = 0
        while result.count < count {
            for (server, tools) in servers where result.count < count {
                let team = teams[Int(random.next() % UInt64(teams.count))]
                let stage = stages[Int(random.next() % UInt64(stages.count))]
                let name = "\(serverPrefix)\(server)-\(team)-\(stage)-\(copy)"
                for tool in tools.prefix(count - result.count) {
                    result.append(vary(tool, server: name, team: team))
                }
            }
            copy += 1
        }
        return result
    }

    private mutating func vary(_ tool: SearchableTool, server: String, team: String) -> SearchableTool {
        var varied = tool
        varied.server = server
        switch random.next() % 4 {
        case 0: varied.name = "\(team)_\(tool.name)"
        case 1: varied.name = "\(tool.name)_\(stages[Int(random.next() % UInt64(stages.count))])"
        default: break
        }
        varied.title = "\(tool.title ?? tool.name) (\(team))"
        let extra = (0..<(5 + Int(random.next() % 10))).map { _ in words[Int(random.next() % UInt64(words.count))] }
        varied.description = (tool.description ?? "") + " For the \(team) team: " + extra.joined(separator: " ") + "."
        return varied
    }
}

/// A small seeded generator, so every run builds the same fleet.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
