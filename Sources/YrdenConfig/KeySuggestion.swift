/// "Did you mean …?" for misspelt keys and values, because a typo in a strict config should cost seconds.
///
/// A suggestion is offered when a known word is within edit distance 2 (insertions, deletions, substitutions
/// and swaps of neighbours, ignoring case), or when the word is a name other MCP hosts use for the same thing
/// (`endpoint`, `transport`, …), so a config copied from another host points at the right key. Hosts' keys
/// that mean exactly a Yrden key (`serverUrl`, `transportType`) are accepted outright (``HostKeys``).
package enum KeySuggestion {
    /// Spellings from other hosts' configs and the key Yrden uses instead.
    private static let aliases: [String: String] = [
        "endpoint": "url",
        "transport": "type",
        "environment": "env",
        "arguments": "args",
        "workingdirectory": "cwd",
        "workdir": "cwd",
    ]

    static func closest(to word: String, among known: [String]) -> String? {
        let lowered = word.lowercased()
        if let alias = aliases[lowered], known.contains(alias) { return alias }
        var best: (word: String, distance: Int)?
        for candidate in known {
            let distance = editDistance(lowered, candidate.lowercased())
            guard distance <= 2, distance < lowered.count || distance == 0 else { continue }
            if let current = best, current.distance <= distance { continue }
            best = (candidate, distance)
        }
        return best?.word
    }

    /// Up to `limit` of `known` nearest to `word` by edit distance (ties in the order given): for a name that
    /// may be far off (a tool's name without its server's prefix), where ``closest(to:among:)`` would say nothing.
    package static func nearest(to word: String, among known: [String], limit: Int = 3) -> [String] {
        let lowered = word.lowercased()
        return known.enumerated()
            .map { (name: $0.element, distance: editDistance(lowered, $0.element.lowercased()), order: $0.offset) }
            .sorted { ($0.distance, $0.order) < ($1.distance, $1.order) }
            .prefix(limit)
            .map(\.name)
    }

    /// Optimal string alignment distance: Levenshtein plus transposition of two neighbouring characters.
    static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs)
        let b = Array(rhs)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }

    /// The fix for an unknown key: the suggestion if there is one, and the keys allowed at that place.
    static func keyFix(for key: String, among known: [String]) -> String {
        let list = known.joined(separator: ", ")
        if let suggestion = closest(to: key, among: known) {
            return "did you mean \"\(suggestion)\"? Known keys here: \(list)"
        }
        return "remove it; known keys here: \(list)"
    }

    /// The fix for a value outside a fixed set (a transport type, an auth type).
    static func valueFix(for value: String, among accepted: [String]) -> String {
        let list = accepted.map { "\"\($0)\"" }.joined(separator: ", ")
        if let suggestion = closest(to: value, among: accepted) {
            return "did you mean \"\(suggestion)\"? Accepted values: \(list)"
        }
        return "use one of \(list)"
    }
}
