/// What a session or a stateless request sees: the whole aggregate (`/mcp`), or one server alone under its own
/// names (`/servers/{id}/mcp`), for a host that wants that server's tools without the others' or the prefix.
package enum CatalogScope: Sendable, Hashable {
    case gateway
    case server(String)

    /// Whether server `id`'s tools, prompts and resources are in this scope.
    package func includes(_ id: String) -> Bool {
        switch self {
        case .gateway: true
        case .server(let own): own == id
        }
    }
}
