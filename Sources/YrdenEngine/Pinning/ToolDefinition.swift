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

    /// The tool as it was listed (or read from the pin file): the listing's own object, shared with it rather
    /// than copied, since a pin is held for every tool of every server.
    private let tool: JSONObject
    /// SHA-256 of the pinned fields in canonical JSON, as its 32 bytes: as a hex string it cost a heap
    /// allocation for every pinned tool.
    package let sha256: SHA256.Digest
    /// The size of the pinned fields in canonical JSON: what ``PinBook``'s bounds count.
    package let canonicalBytes: Int

    /// The definition of `tool` as a server listed it; only the pinned fields count.
    package init(tool: JSONObject) {
        self.tool = tool
        let bytes = CanonicalJSON.bytes(.object(Self.pinnedFields(of: tool)))
        sha256 = SHA256.hash(data: bytes)
        canonicalBytes = bytes.count
    }

    /// The pinned fields the tool has, as it listed them.
    package var fields: JSONObject { Self.pinnedFields(of: tool) }

    /// A pinned field's value; `nil` for any other field.
    package subscript(field: String) -> JSONValue? {
        Self.pinnedFields.contains(field) ? tool[field] : nil
    }

    /// ``sha256`` as lowercase hex: how operators and the API name a definition.
    package var digest: String { CanonicalJSON.hex(sha256) }

    package var name: String { tool["name"]?.stringValue ?? "" }

    package var json: JSONValue { .object(fields) }

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
