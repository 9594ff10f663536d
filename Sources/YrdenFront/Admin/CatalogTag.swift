/// The `ETag` of a server's lists as the admin API shows them, and the `If-None-Match` check against it.
///
/// Made from the items' digests (the engine's per-item hashes, computed where the lists were loaded), so
/// telling whether a client's copy is current costs a pass over integers, not a serialization. Hash values are
/// seeded per process: a tag from before a restart never matches, and the client reads the lists again.
enum CatalogTag {
    static func of(_ digests: [[Int]]) -> String {
        var hasher = Hasher()
        for list in digests {
            hasher.combine(list.count)
            for digest in list { hasher.combine(digest) }
        }
        return "\"c" + String(UInt(bitPattern: hasher.finalize()), radix: 16) + "\""
    }

    /// Whether `ifNoneMatch` (RFC 9110: `*` or a list of tags, weak ones compared weakly) names `tag`.
    static func matches(_ tag: String, _ ifNoneMatch: String?) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingWhitespace()
            return trimmed == "*" || trimmed == tag || trimmed == "W/" + tag
        }
    }
}
