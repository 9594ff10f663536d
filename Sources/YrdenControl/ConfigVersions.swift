import YrdenConfig
import YrdenProtocol

/// The versions of the config document and of each server's entry, as strong ETags.
///
/// A tag is this process's random epoch and a revision that advances only when the document (or the entry)
/// really changes, so rereading the same file keeps every tag, and a tag from before a restart never matches.
/// A counter rather than a hash of the content: a hash of a document with secrets in it would let anyone who
/// reads the tag test guesses of a secret. With a store, every replica has the same tags: the epoch is the
/// store's, the revision is the stored version, and the entries' revisions are stored beside the document.
struct ConfigVersions: Sendable, Equatable {
    private(set) var epoch = String(UInt64.random(in: 1...UInt64.max), radix: 36)
    private(set) var revision = 0
    /// The revision at which each entry last changed; absent means unchanged since start (revision 0).
    private(set) var entryRevisions: [String: Int] = [:]

    init() {}

    /// The versions a store holds.
    init(epoch: String, revision: Int, entryRevisions: [String: Int]) {
        self.epoch = epoch
        self.revision = revision
        self.entryRevisions = entryRevisions
    }

    var documentTag: String { tag(revision) }

    func entryTag(_ id: String) -> String { tag(entryRevisions[id] ?? 0) }

    /// Records the change from `old` to `new`: a new revision for the document and for every entry that
    /// differs, if anything does.
    mutating func advance(from old: ConfigDocument, to new: ConfigDocument) {
        guard old != new else { return }
        advance(from: old, to: new, revision: revision + 1)
    }

    /// Records the change from `old` to `new` as revision `revision` (the version a store gave the write).
    mutating func advance(from old: ConfigDocument, to new: ConfigDocument, revision: Int) {
        self.revision = revision
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
