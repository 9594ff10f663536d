import YrdenConfig
import YrdenProtocol
import YrdenSharedState

/// The config as replicas share it: one document in the store, with the versions every replica's ETags come
/// from, so an `If-Match` read on one replica is checked on another.
///
/// Stored as `{"format": 1, "epoch": …, "entries": {id: revision}, "document": {…}}` under the name `config`,
/// at a store version equal to the document's revision. The document is the shared part only
/// (``ConfigDocument/sharedPart``); what is read gets this replica's own settings back from its file.
package struct SharedConfig: Sendable {
    static let name = "config"
    package let database: SharedStateDatabase
    /// This replica's file, whose own settings (``ConfigDocument/replicaGatewayKeys``) are kept.
    package let local: ConfigDocument

    package init(database: SharedStateDatabase, local: ConfigDocument) {
        self.database = database
        self.local = local
    }

    /// A version of the shared config as this replica runs it.
    package struct Snapshot: Sendable {
        package var document: ConfigDocument
        var versions: ConfigVersions
        package var version: Int64
    }

    /// What is stored; `nil` when no replica wrote the config yet.
    func read() async throws(SharedStateError) -> Snapshot? {
        guard let stored = try await database.read(Self.name) else { return nil }
        return try decode(stored)
    }

    /// The stored config, or, when there is none yet, this replica's file written as the first version (two
    /// replicas seeding at once: one write wins, the other reads it).
    package func loadOrSeed() async throws(SharedStateError) -> Snapshot {
        if let snapshot = try await read() { return snapshot }
        var versions = ConfigVersions()
        versions.advance(from: ConfigDocument(), to: local, revision: 1)
        do {
            let version = try await write(local, versions: versions, expecting: 0)
            return Snapshot(document: local.withReplicaSettings(of: local), versions: versions, version: version)
        } catch .versionChanged {
            guard let snapshot = try await read() else { throw .unreadable("the shared config vanished while seeding") }
            return snapshot
        }
    }

    /// Writes `document` with `versions` if the store is still at `expected`; the new store version, which is
    /// `versions.revision`.
    func write(
        _ document: ConfigDocument,
        versions: ConfigVersions,
        expecting expected: Int64
    ) async throws(SharedStateError) -> Int64 {
        let entries = JSONObject(versions.entryRevisions.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })
        let body: JSONValue = .object([
            "format": .int(1),
            "epoch": .string(versions.epoch),
            "entries": .object(entries),
            "document": .object(document.sharedPart.root),
        ])
        return try await database.write(Self.name, body.serialized(), expecting: expected)
    }

    private func decode(_ stored: StoredDocument) throws(SharedStateError) -> Snapshot {
        guard let body = try? JSONValue.parse(stored.body), body["format"] == .int(1),
            case .string(let epoch)? = body["epoch"], case .object(let root)? = body["document"]
        else {
            throw .unreadable("the shared config (version \(stored.version)) is not in a format this build reads")
        }
        var entries: [String: Int] = [:]
        for (id, value) in body["entries"]?.objectValue ?? JSONObject() {
            if case .int(let revision) = value { entries[id] = revision }
        }
        let versions = ConfigVersions(epoch: epoch, revision: Int(stored.version), entryRevisions: entries)
        let document = ConfigDocument(root).withReplicaSettings(of: local)
        return Snapshot(document: document, versions: versions, version: stored.version)
    }
}
