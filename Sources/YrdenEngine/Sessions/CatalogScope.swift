import YrdenConfig

/// What a session or a stateless request sees: the whole aggregate (`/mcp`), one server alone under its own
/// names (`/servers/{id}/mcp`), or a profile's view (`/mcp/{profile}`, `yrden stdio --profile`).
package enum CatalogScope: Sendable, Hashable {
    case gateway
    case server(String)
    case profile(String)
}

extension CatalogScope {
    /// The scope as a gateway-sealed `requestState` binds it: one text per endpoint.
    var claim: String {
        switch self {
        case .gateway: "gateway"
        case .server(let id): "server:" + id
        case .profile(let name): "profile:" + name
        }
    }
}

extension ServerRegistry.Snapshot {
    /// Whether server `id`'s tools, prompts and resources are in `scope`.
    package func includes(_ id: String, in scope: CatalogScope) -> Bool {
        switch scope {
        case .gateway: true
        case .server(let own): own == id
        case .profile(let name): profileSpecs[name]?.includes(server: id) ?? false
        }
    }
}
