// The C library's `log` for the idf: the standard library has no logarithm, and this target stays free of Foundation.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ToolSearchIndex {
    /// The tools that best match `query`, best first, at most `limit` (and ``SearchLimits/results``) of them.
    ///
    /// Scores are BM25F (``Ranking``) over the query's distinct terms, their synonyms and related words
    /// (``Thesaurus``), and for a query word the index lacks, the words that begin like it (``PartialTerms``); a
    /// query that is a tool's whole name (or its server's and its name, as `github__create_issue`) ranks that
    /// tool above every other match. Equal scores are ordered by server, then name, so the same index and query
    /// give the same list on every run. `include` is asked only about tools that would enter the results, so a
    /// profile's restriction costs nothing per tool it excludes that would not have ranked anyway. A query with
    /// no terms but stop words finds nothing.
    package func search(
        _ query: String,
        limit: Int,
        where include: (ToolKey) -> Bool = { _ in true }
    ) -> [SearchHit] {
        guard let query = Query(query, limit: limit, in: self) else { return [] }
        return rank(query, weightedTerms(query.terms, widened: false), include)
    }

    /// ``search(_:limit:where:)``, and when that finds nothing `include` accepts, the weak matches: every query
    /// word, synonym and related word widened to the words that begin like it. An agent told "no tool matches"
    /// gives up on a tool that exists; one shown the nearest tools, marked as such, can judge them. Costs a
    /// second pass only for a query the first found nothing for.
    package func searchOrNearest(
        _ query: String,
        limit: Int,
        where include: (ToolKey) -> Bool = { _ in true }
    ) -> SearchResults {
        guard let query = Query(query, limit: limit, in: self) else { return SearchResults(hits: [], weak: true) }
        let hits = rank(query, weightedTerms(query.terms, widened: false), include)
        guard hits.isEmpty else { return SearchResults(hits: hits, weak: false) }
        return SearchResults(hits: rank(query, weightedTerms(query.terms, widened: true), include), weak: true)
    }

    /// The ids of the terms a search scores, each once with the weight of its closest reason: the query's own
    /// words, then their synonyms, then their related words, then the two words a word the index lacks joins
    /// (at a synonym's weight), then words that begin like them (for words the index lacks, or for every word
    /// and its synonyms and related words when `widened`), at most ``SearchLimits/queryTerms`` of those last,
    /// so a long query costs a widened search no more than a few dozen posting lists.
    func weightedTerms(_ distinct: [String], widened: Bool) -> [(id: UInt32, weight: Double)] {
        var terms: [(id: UInt32, weight: Double)] = []
        var seen = Set<UInt32>()
        func add(_ id: UInt32?, _ weight: Double) {
            guard let id, seen.insert(id).inserted else { return }
            terms.append((id, weight))
        }
        for term in distinct { add(vocabulary[term], 1) }
        var said = distinct
        var saidSet = Set(distinct)
        for (table, weight) in [
            (Thesaurus.synonyms, ranking.synonymWeight), (Thesaurus.relatedTerms, ranking.relatedWeight),
        ] {
            for term in distinct {
                for word in table[term] ?? [] where saidSet.insert(word).inserted {
                    said.append(word)
                    add(vocabulary[word], weight)
                }
            }
        }
        for term in distinct where vocabulary[term] == nil {
            guard let (left, right) = parts(of: term) else { continue }
            add(left, ranking.synonymWeight)
            add(right, ranking.synonymWeight)
        }
        var partials = 0
        for term in widened ? said : distinct where widened || vocabulary[term] == nil {
            for id in partialMatches(of: term) where partials < SearchLimits.queryTerms {
                partials += 1
                add(id, ranking.partialWeight)
            }
        }
        return terms
    }

    private func rank(
        _ query: Query,
        _ terms: [(id: UInt32, weight: Double)],
        _ include: (ToolKey) -> Bool
    ) -> [SearchHit] {
        var scores = [Float](repeating: 0, count: documents.count)
        var candidates: [UInt32] = []
        let ceiling = accumulate(terms, into: &scores, candidates: &candidates)
        let named = nameDocuments[query.nameKey] ?? []
        for doc in named where scores[Int(doc)] == 0 { candidates.append(doc) }
        return best(candidates, scores, Named(documents: named, bonus: Float(ceiling)), query.limit, include)
    }

    /// Adds each term's BM25F contribution to the scores of the documents that have it, noting each document
    /// the first time it scores. Returns the most any document could score, the margin a whole-name match gets.
    private func accumulate(
        _ terms: [(id: UInt32, weight: Double)],
        into scores: inout [Float],
        candidates: inout [UInt32]
    ) -> Double {
        let k1 = ranking.k1
        let documentCount = Double(count)
        var weights: [Double] = []
        var base: [Double] = []
        var slope: [Double] = []
        for field in DocumentField.allCases {
            // At least one term: a field most tools leave empty (titles) must not make the few that fill it long.
            let average = max(Double(totalLengths[field.rawValue]) / documentCount, 1)
            let b = ranking.lengthNormalization[field.rawValue]
            weights.append(ranking.weights[field.rawValue])
            base.append(1 - b)
            slope.append(b / average)
        }
        var ceiling = 0.0
        for (term, termWeight) in terms {
            let list = postings[Int(term)]
            let frequency = Double(list.count)
            let idf = termWeight * log(1 + (documentCount - frequency + 0.5) / (frequency + 0.5))
            ceiling += idf * (k1 + 1)
            for posting in list {
                let length = lengths[Int(posting.doc)]
                var weighted = 0.0
                for field in DocumentField.allCases {
                    let tf = posting.counts[field]
                    guard tf > 0 else { continue }
                    let f = field.rawValue
                    weighted += weights[f] * Double(tf) / (base[f] + slope[f] * Double(length[field]))
                }
                let gain = Float(idf * weighted * (k1 + 1) / (k1 + weighted))
                if scores[Int(posting.doc)] == 0 { candidates.append(posting.doc) }
                scores[Int(posting.doc)] += gain
            }
        }
        return ceiling
    }

    /// The `limit` best candidates that `include` accepts, kept sorted as they are found.
    private func best(
        _ candidates: [UInt32],
        _ scores: [Float],
        _ named: Named,
        _ limit: Int,
        _ include: (ToolKey) -> Bool
    ) -> [SearchHit] {
        var ranked: [(score: Float, key: ToolKey)] = []
        ranked.reserveCapacity(limit + 1)
        let demotion = Float(ranking.deprecatedWeight)
        for doc in candidates {
            var score = deprecated[Int(doc)] ? scores[Int(doc)] * demotion : scores[Int(doc)]
            if named.documents.contains(doc) { score += named.bonus }
            if ranked.count == limit, let last = ranked.last, score < last.score { continue }
            guard let key = documents[Int(doc)]?.key else { continue }
            if ranked.count == limit, let last = ranked.last, !Self.precedes(score, key, last.score, last.key) {
                continue
            }
            guard include(key) else { continue }
            var index = ranked.count
            while index > 0, Self.precedes(score, key, ranked[index - 1].score, ranked[index - 1].key) { index -= 1 }
            ranked.insert((score, key), at: index)
            if ranked.count > limit { ranked.removeLast() }
        }
        return ranked.map { SearchHit(key: $0.key, score: Double($0.score)) }
    }

    private static func precedes(_ score: Float, _ key: ToolKey, _ otherScore: Float, _ otherKey: ToolKey) -> Bool {
        score != otherScore ? score > otherScore : key < otherKey
    }
}

/// The tools whose whole name the query is, and what puts them above every other match: the most any tool could
/// score on the query's terms.
private struct Named {
    var documents: [UInt32]
    var bonus: Float
}

/// A query read once: its distinct terms (at most ``SearchLimits/queryTerms``), its whole-name key and the
/// results wanted; nil when there is nothing to look for.
private struct Query {
    var terms: [String] = []
    var nameKey: String
    var limit: Int

    init?(_ query: String, limit: Int, in index: ToolSearchIndex) {
        self.limit = min(limit, SearchLimits.results)
        guard self.limit > 0, index.count > 0 else { return nil }
        let text = SearchLimits.prefix(query, SearchLimits.queryCharacters)
        for term in Tokenizer.terms(text) where terms.count < SearchLimits.queryTerms && !terms.contains(term) {
            terms.append(term)
        }
        guard !terms.isEmpty else { return nil }
        nameKey = Tokenizer.nameKey(text)
    }
}

/// What ``ToolSearchIndex/searchOrNearest(_:limit:where:)`` found: the hits, and whether they are only weak
/// matches (no tool matched the query's words, its synonyms or related words; these share beginnings of words).
package struct SearchResults: Sendable, Equatable {
    package var hits: [SearchHit]
    package var weak: Bool

    package init(hits: [SearchHit], weak: Bool) {
        self.hits = hits
        self.weak = weak
    }
}
