@testable import YrdenSearch

/// A tool of `server` with a description and arguments, for tests that need only a few words.
func tool(
    _ server: String,
    _ name: String,
    title: String? = nil,
    _ description: String? = nil,
    arguments: [String] = [],
    argumentDescriptions: [String: String] = [:]
) -> SearchableTool {
    SearchableTool(
        server: server,
        name: name,
        title: title,
        description: description,
        argumentNames: arguments,
        argumentDescriptions: argumentDescriptions
    )
}

/// An index holding `servers`' tools, each server replaced once in the order given.
func makeIndex(_ servers: [(String, [SearchableTool])], capacity: Int = SearchLimits.documents) -> ToolSearchIndex {
    var index = ToolSearchIndex(capacity: capacity)
    for (server, tools) in servers { index.replace(server: server, tools: tools) }
    return index
}

extension ToolSearchIndex {
    /// The hits' keys, best first, as "server/name".
    func names(_ query: String, limit: Int = 10, where include: (ToolKey) -> Bool = { _ in true }) -> [String] {
        search(query, limit: limit, where: include).map(\.key.description)
    }

    /// Everything the ranking reads, by value: equal statistics rank the same.
    var statistics: Statistics {
        var frequencies: [String: Int] = [:]
        for (term, id) in vocabulary { frequencies[term] = postings[Int(id)].count }
        var documentLengths: [ToolKey: [UInt16]] = [:]
        for (id, document) in documents.enumerated() {
            guard let document else { continue }
            documentLengths[document.key] = DocumentField.allCases.map { lengths[id][$0] }
        }
        return Statistics(
            count: count,
            totalLengths: totalLengths,
            documentFrequencies: frequencies,
            documentLengths: documentLengths,
            partialTerms: partialTerms.mapValues { Set($0.map { termText[Int($0)] }) }
        )
    }
}

struct Statistics: Equatable {
    var count: Int
    var totalLengths: [Int]
    var documentFrequencies: [String: Int]
    var documentLengths: [ToolKey: [UInt16]]
    /// The terms listed under each four-byte beginning (``PartialTerms``).
    var partialTerms: [UInt32: Set<String>]
}
