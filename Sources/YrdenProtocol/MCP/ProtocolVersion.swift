/// MCP protocol revisions of the handshake era and how the gateway negotiates them.
package enum ProtocolVersion {
    /// Handshake-era revisions the gateway speaks, oldest first.
    package static let supported = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
    package static let latest = "2025-11-25"

    package static func isSupported(_ version: String) -> Bool {
        supported.contains(version)
    }

    /// The answer to an `initialize` that asked for `requested`: the same version when supported, otherwise
    /// the latest, and the client decides whether it can live with it.
    package static func negotiate(requested: String?) -> String {
        guard let requested, isSupported(requested) else { return latest }
        return requested
    }

    /// Batches (JSON arrays) exist only in 2025-03-26; later revisions removed them.
    package static func allowsBatches(_ version: String) -> Bool {
        version == "2025-03-26"
    }
}
