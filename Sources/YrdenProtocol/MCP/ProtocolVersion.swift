/// MCP protocol revisions of the handshake era and how the gateway negotiates them.
package enum ProtocolVersion {
    /// Handshake-era revisions the gateway speaks, oldest first.
    package static let supported = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
    package static let latest = "2025-11-25"
    /// The stateless revision: no handshake, every request carries its version in `_meta`.
    package static let modern = "2026-07-28"
    /// Every revision the gateway serves, newest first, as -32022 and `server/discover` list them: a dual-era
    /// client that finds a handshake revision here falls back to `initialize` instead of giving up.
    package static let served = [modern] + supported.reversed()

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
