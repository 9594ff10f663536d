import Testing

@testable import YrdenFront

/// Large admin listings are kept while what they were made from is unchanged, within bounds.
@Suite struct AdminReadCacheTests {
    final class Catalog: Sendable {}

    @Test func anAnswerIsKeptForTheSameObjectOnly() {
        let cache = AdminReadCache()
        let catalog = Catalog()
        cache.keep([1, 2, 3], for: "tools", from: .object(catalog))
        #expect(cache.bytes(for: "tools", from: .object(catalog)) == [1, 2, 3])
        #expect(cache.bytes(for: "tools", from: .object(Catalog())) == nil)
        #expect(cache.bytes(for: "other", from: .object(catalog)) == nil)
    }

    @Test func anAnswerNeverKeepsItsObjectAlive() {
        let cache = AdminReadCache()
        weak var gone: Catalog?
        do {
            let catalog = Catalog()
            gone = catalog
            cache.keep([1], for: "tools", from: .object(catalog))
        }
        #expect(gone == nil)
        // Whatever is allocated at the freed address now is another catalog.
        #expect(cache.bytes(for: "tools", from: .object(Catalog())) == nil)
    }

    @Test func digestsDecideForAServersLists() {
        let cache = AdminReadCache()
        cache.keep([7], for: "servers/a/server_tools", from: .digests([[1, 2]]))
        #expect(cache.bytes(for: "servers/a/server_tools", from: .digests([[1, 2]])) == [7])
        #expect(cache.bytes(for: "servers/a/server_tools", from: .digests([[1, 3]])) == nil)
    }

    @Test func atMostSixteenAnswersTheLeastRecentlyUsedGoFirst() {
        let cache = AdminReadCache()
        for index in 0..<AdminReadCache.maxEntries {
            cache.keep([UInt8(index)], for: "k\(index)", from: .digests([[index]]))
        }
        #expect(cache.bytes(for: "k0", from: .digests([[0]])) == [0])
        cache.keep([99], for: "new", from: .digests([[99]]))
        #expect(cache.count == AdminReadCache.maxEntries)
        #expect(cache.bytes(for: "k0", from: .digests([[0]])) == [0], "used last, kept")
        #expect(cache.bytes(for: "k1", from: .digests([[1]])) == nil, "least recently used, dropped")
    }

    @Test func byteBoundsHold() {
        let cache = AdminReadCache()
        let quarter = [UInt8](repeating: 0, count: AdminReadCache.maxBytes / 4)
        cache.keep(quarter + [0], for: "huge", from: .digests([]))
        #expect(cache.count == 0, "an answer over a quarter of the bound is not kept")
        for index in 0..<5 { cache.keep(quarter, for: "q\(index)", from: .digests([])) }
        #expect(cache.count == 4)
    }
}

/// A server's lists are tagged by their digests, and a client's `If-None-Match` is checked against the tag.
@Suite struct CatalogTagTests {
    @Test func theTagFollowsTheDigests() {
        #expect(CatalogTag.of([[1, 2]]) == CatalogTag.of([[1, 2]]))
        #expect(CatalogTag.of([[1, 2]]) != CatalogTag.of([[2, 1]]))
        #expect(CatalogTag.of([[1], [2]]) != CatalogTag.of([[1, 2], []]))
        #expect(CatalogTag.of([]).hasPrefix("\"") && CatalogTag.of([]).hasSuffix("\""))
    }

    @Test func ifNoneMatchAsRFC9110ReadsIt() {
        let tag = CatalogTag.of([[5]])
        #expect(CatalogTag.matches(tag, tag))
        #expect(CatalogTag.matches(tag, "\"other\", \(tag)"))
        #expect(CatalogTag.matches(tag, "W/\(tag)"))
        #expect(CatalogTag.matches(tag, "*"))
        #expect(!CatalogTag.matches(tag, nil))
        #expect(!CatalogTag.matches(tag, "\"other\""))
    }
}
