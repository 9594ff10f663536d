import Testing

@testable import YrdenSearch

/// What a hostile upstream or client can make the index hold or do is bounded (``SearchLimits``).
@Suite struct BoundsTests {
    @Test func aHugeDescriptionIsIndexedOnItsFirstCharactersOnly() {
        let padding = String(repeating: "alpha ", count: 200_000)
        let index = makeIndex([("evil", [tool("evil", "big", padding + "omega")])])
        #expect(index.names("omega").isEmpty)
        #expect(index.names("alpha") == ["evil/big"])
        let length = Int(index.lengths[0][.description])
        #expect(length <= SearchLimits.descriptionCharacters / 2)
        #expect(length == SearchLimits.descriptionCharacters / "alpha ".count + 1)
    }

    @Test func termsPastTheBoundAreNotIndexedNorRemembered() {
        let words = (0..<300).map { "w\($0)z" }
        let description = words.joined(separator: " ") + " w0z"
        let index = makeIndex([("s", [tool("s", "t", description)])])  // one-letter names give no term
        let limit = SearchLimits.documentTerms
        #expect(index.documents[0]?.terms.count == limit)
        #expect(index.vocabulary.count == limit)
        #expect(index.names(words[limit - 1]) == ["s/t"])
        #expect(index.names(words[limit]).isEmpty)
        #expect(index.postings[Int(index.vocabulary["w0z"] ?? 0)].first?.counts[.description] == 2)
    }

    @Test func argumentsPastTheBoundAreNotIndexed() {
        let arguments = (0..<1_000).map { "argument\($0)" }
        let index = makeIndex([("s", [tool("s", "many", arguments: arguments)])])
        #expect(index.names(arguments[SearchLimits.arguments - 1]) == ["s/many"])
        #expect(index.names(arguments[SearchLimits.arguments]).isEmpty)
        #expect(Int(index.lengths[0][.argumentNames]) == SearchLimits.arguments)
    }

    @Test func aLongQueryIsReadUpToItsBound() {
        let index = makeIndex([("s", [tool("s", "target", "zebra")])])
        let filler = String(repeating: "x", count: SearchLimits.queryCharacters - 1)
        #expect(index.names(String(filler.dropLast(6)) + " zebra").count == 1)
        #expect(index.names(filler + " zebra").isEmpty)
    }

    @Test func queryTermsPastTheBoundAreIgnored() {
        let index = makeIndex([("s", [tool("s", "target", "zebra")])])
        let terms = (0..<SearchLimits.queryTerms).map { "q\($0)z" }.joined(separator: " ")
        #expect(index.names(terms + " zebra").isEmpty)
        #expect(index.names("zebra " + terms).count == 1)
    }

    @Test func wordsThatBeginAlikeAddAtMostAQueryWorthOfTerms() {
        let letters = Array("bcdfghjklmnpqrstvwxz")
        let pair = { (n: Int) in String(letters[n / 20 % 20]) + String(letters[n % 20]) }
        let groups = 0..<SearchLimits.queryTerms
        let index = makeIndex([
            (
                "s",
                groups.map { g in
                    tool("s", "t\(g)", (0..<10).map { pair(g) + "cdzz" + pair($0) }.joined(separator: " "))
                }
            )
        ])
        let query = groups.map { pair($0) + "cdzzzzy" }  // each begins like the ten words of its own tool
        #expect(query.allSatisfy { index.vocabulary[$0] == nil })
        #expect(query.allSatisfy { index.partialMatches(of: $0).count == SearchLimits.partialMatches })
        #expect(index.weightedTerms(query, widened: false).count == SearchLimits.queryTerms)
        #expect(index.weightedTerms(query, widened: true).count == SearchLimits.queryTerms)
    }

    @Test func resultsAreCappedWhateverTheLimit() {
        let index = makeIndex([("s", (0..<300).map { tool("s", "tool\($0)", "Shared word") })])
        #expect(index.search("shared", limit: 1_000).count == SearchLimits.results)
    }

    @Test func theIndexHoldsNoMoreThanItsCapacity() {
        var index = ToolSearchIndex(capacity: 5)
        #expect(index.replace(server: "a", tools: (0..<3).map { tool("a", "a\($0)", "Word") }) == 3)
        #expect(index.replace(server: "b", tools: (0..<3).map { tool("b", "b\($0)", "Word") }) == 2)
        #expect(index.count == 5)
        #expect(index.names("b2").isEmpty)
        index.remove(server: "a")
        #expect(index.replace(server: "c", tools: (0..<3).map { tool("c", "c\($0)", "Word") }) == 3)
        #expect(index.count == 5)
    }
}
