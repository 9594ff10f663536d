import YrdenConfig
import YrdenProtocol

/// The versions of the config document and of each server's entry, as strong ETags.
///
/// A tag is this process's random epoch and a revision that advances only when the document (or the entry)
/// really changes, so rereading the same file keeps every tag, and a tag from before a restart never matches.
/// A counter rather than a hash of the content: a hash of a document with secrets in it would let anyone who
/// reads the tag test guesses of a secret.
struct ConfigVersions: Sendable {
    private let epoch = String(UInt64.random(in: 1...UInt64.max), radix: 36)
    private var revision = 0
    /// The revision at which each entry last changed; absent means unchanged since start (revision 0).
    private var entryRevisions: [String: Int] = [:]

    var documentTag: String { tag(revision) }

    func entryTag(_ id: String) -> String { tag(entryRevisions[id] ?? 0) }

    /// Records the change from `old` to `new`: a new revision for the document and for every entry that
    /// differs, if anything does.
    mutating func advance(from old: ConfigDocument, to new: ConfigDocument) {
        guard old != new else { return }
        revision += 1
        let oldEntries = old.json["mcpServers"]?.objectValue ?? JSONObject()
        let newEntries = new.json["mcpServers"]?.objectValue ?? JSONObject()
        for (id, _) in oldEntries where newEntries[id] == nil { entryRevisions[id] = revision }
        for (id, entry) in newEntries where oldEntries[id] != entry { entryRevisions[id] = revision }
    }

    private func tag(_ revision: Int) -> String { "\"\(epoch)-\(revision)\"" }
}

/// The version a client's write is conditional on (`If-Match`): any current one (`*`, or no condition), or
/// one of the tags it read.
package enum ExpectedVersion: Sendable, Hashable {
    case any
    case oneOf([String])

    /// Whether a resource whose current tag is `current` satisfies the condition (strong comparison).
    package func accepts(_ current: String) -> Bool {
        switch self {
        case .any: true
        case .oneOf(let tags): tags.contains(current)
        }
    }
}
