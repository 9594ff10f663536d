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

    /// The pinned fields the tool has, as it listed them.
    package let fields: JSONObject
    /// SHA-256 of ``fields`` in canonical JSON, lowercase hex.
    package let digest: String

    /// The definition of `tool` as a server listed it (any other field is dropped).
    package init(tool: JSONObject) {
        var fields = JSONObject()
        for field in Self.pinnedFields {
            if let value = tool[field] { fields[field] = value }
        }
        self.fields = fields
        digest = CanonicalJSON.sha256(.object(fields))
    }

    package var name: String { fields["name"]?.stringValue ?? "" }

    package var json: JSONValue { .object(fields) }
}
