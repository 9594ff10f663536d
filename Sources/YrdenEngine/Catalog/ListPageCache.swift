import Synchronization
import YrdenProtocol

/// The serialized pages of the merged lists for the newest catalog generation. Every client that lists reads
/// the same pages, and serializing a page of 500 tools costs far more than copying its bytes, so each page is
/// serialized once per generation.
///
/// Bounded by the catalog itself: only one generation's pages are kept (a newer generation drops them all),
/// and a generation has at most one entry per page of each list, for the aggregate and for each profile.
final class ListPageCache: Sendable {
    private struct Key: Hashable {
        let kind: ServerCatalog.Kind
        let cursor: String?
        /// `nil` for the aggregate.
        let profile: String?
    }

    private struct Pages {
        var generation = -1
        var byKey: [Key: EncodedJSON] = [:]
    }

    private let pages = Mutex(Pages())

    /// The serialization of `page`, the page of `kind` at `cursor` in catalog `generation`: from the cache when
    /// another request already made it.
    func encoded(
        _ page: JSONValue,
        kind: ServerCatalog.Kind,
        cursor: String?,
        generation: Int,
        profile: String? = nil
    ) -> EncodedJSON {
        let key = Key(kind: kind, cursor: cursor, profile: profile)
        if let cached = pages.withLock({ $0.generation == generation ? $0.byKey[key] : nil }) { return cached }
        let encoded = EncodedJSON(page)
        pages.withLock { pages in
            if generation > pages.generation { pages = Pages(generation: generation) }
            if generation == pages.generation { pages.byKey[key] = encoded }
        }
        return encoded
    }

    /// Pages held now, for tests.
    var count: Int { pages.withLock { $0.byKey.count } }
}
