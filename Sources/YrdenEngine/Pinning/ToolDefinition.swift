import Crypto
import YrdenProtocol

/// What a tool tells a model about itself, and its digest: what pinning compares.
///
/// Pinned: `name`, `title`, `description`, `inputSchema`, `outputSchema` and `annotations`, the fields a host
/// shows a model or an operator to decide whether and how to call the tool, and so the fields a server that
/// turns hostile after approval ("rug pull") would change. Left out:
/// - `_meta`: what servers, hosts and gateways attach for themselves (an app's UI resource, tracing ids, this
///   gateway's own flag); servers may vary it between listings without changing what the tool does, so
///   hashing it would ask operators to approve noise.
/// - `icons`: display only, and often URLs whose signed query strings rotate.
/// - any field a later protocol revision adds: a server upgraded to that revision must not flag every tool.
///
/// The digest is SHA-256 over the pinned fields in canonical JSON (keys sorted at every level), so a server
/// that only reorders keys, or a JSON library that does, changes nothing.
package struct ToolDefinition: Sendable, Hashable {
    package static let pinnedFields = ["name", "title", "description", "inputSchema", "outputSchema", "annotations"]

    /// The tool as it was listed: the listing's own object, shared with it rather than copied, since a pin is
    /// held for every tool of every server. Or, for a definition read from the pin file, where it is kept
    /// there: holding 10,000 definitions parsed at a restart left the gateway 6 MB larger for good.
    private let source: Source

    private enum Source: Sendable {
        case listed(JSONObject)
        case stored(any StoredToolDefinition)
    }
    /// SHA-256 of the pinned fields in canonical JSON, as its 32 bytes: as a hex string it cost a heap
    /// allocation for every pinned tool.
    package let sha256: SHA256.Digest
    /// The size of the pinned fields in canonical JSON: what ``PinBook``'s bounds count.
    package let canonicalBytes: Int

    /// The definition of `tool` as a server listed it; only the pinned fields count.
    package init(tool: JSONObject) {
        source = .listed(tool)
        let bytes = CanonicalJSON.bytes(.object(Self.pinnedFields(of: tool)))
        sha256 = SHA256.hash(data: bytes)
        canonicalBytes = bytes.count
    }

    /// A definition kept by the pin store, whose digest and size were computed from it as it was read.
    package init(stored: any StoredToolDefinition, sha256: SHA256.Digest, canonicalBytes: Int) {
        source = .stored(stored)
        self.sha256 = sha256
        self.canonicalBytes = canonicalBytes
    }

    /// `true` while the definition is kept by the pin store, not in memory: reading it is I/O.
    package var isStored: Bool {
        if case .stored = source { return true }
        return false
    }

    /// The pinned fields the tool has, as it listed them; read from the store for a stored definition (empty
    /// when that read fails: only diffs and listings read this way, and the save uses ``savedJSON()``).
    package var fields: JSONObject {
        switch source {
        case .listed(let tool): return Self.pinnedFields(of: tool)
        case .stored(let stored): return (try? stored.fields()).map(Self.pinnedFields(of:)) ?? [:]
        }
    }

    /// The pinned fields as JSON to save; throws when a stored definition can no longer be read, so a save
    /// never writes a definition it lost.
    package func savedJSON() throws -> JSONValue {
        switch source {
        case .listed(let tool): return .object(Self.pinnedFields(of: tool))
        case .stored(let stored): return .object(Self.pinnedFields(of: try stored.fields()))
        }
    }

    /// For a stored definition, its JSON text as the store holds it, to be written back unchanged (no tree
    /// built); `nil` for one in memory. Throws when it can no longer be read.
    package func storedText() throws -> [UInt8]? {
        guard case .stored(let stored) = source else { return nil }
        return try stored.text()
    }

    /// The same definition held in memory, read from the store once (for a diff of several fields); itself
    /// when it is in memory already, or when the read fails.
    package func loaded() -> ToolDefinition {
        guard case .stored(let stored) = source, let tool = try? stored.fields() else { return self }
        return ToolDefinition(listed: tool, sha256: sha256, canonicalBytes: canonicalBytes)
    }

    private init(listed tool: JSONObject, sha256: SHA256.Digest, canonicalBytes: Int) {
        source = .listed(tool)
        self.sha256 = sha256
        self.canonicalBytes = canonicalBytes
    }

    /// A pinned field's value; `nil` for any other field.
    package subscript(field: String) -> JSONValue? {
        guard Self.pinnedFields.contains(field) else { return nil }
        switch source {
        case .listed(let tool): return tool[field]
        case .stored: return fields[field]
        }
    }

    /// ``sha256`` as lowercase hex: how operators and the API name a definition.
    package var digest: String { CanonicalJSON.hex(sha256) }

    package var name: String {
        switch source {
        case .listed(let tool): return tool["name"]?.stringValue ?? ""
        case .stored(let stored): return stored.name
        }
    }

    package var json: JSONValue { .object(fields) }

    /// About the bytes this value keeps alive: the whole object as it was listed (its `_meta` too, which
    /// ``canonicalBytes`` leaves out), next to nothing for a definition the pin store keeps.
    var heldBytes: Int {
        switch source {
        case .listed(let tool): return tool.heldBytes
        case .stored(let stored): return 64 + stored.name.utf8.count
        }
    }

    /// Two definitions are the same when their pinned fields are: what else a listing carries does not count.
    package static func == (lhs: ToolDefinition, rhs: ToolDefinition) -> Bool {
        lhs.sha256 == rhs.sha256
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(sha256)
    }

    private static func pinnedFields(of tool: JSONObject) -> JSONObject {
        var fields = JSONObject()
        for field in pinnedFields {
            if let value = tool[field] { fields[field] = value }
        }
        return fields
    }
}

/// A tool definition the pin store keeps on its side (the pin file) instead of in memory, read again when a
/// diff, a listing of pins or a save needs it: a pin only needs its digest to compare a listing with.
package protocol StoredToolDefinition: AnyObject, Sendable {
    /// The tool's name, kept in memory: events and log lines name it.
    var name: String { get }
    /// The definition as it was read; throws when it can no longer be.
    func fields() throws -> JSONObject
    /// Its JSON text as kept, in the layout ``PinBook/writePrettyJSON(pieceBytes:_:)`` gave it.
    func text() throws -> [UInt8]
}
