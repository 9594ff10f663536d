import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// What a client sees of the catalog in its scope (``CatalogScope``): the whole gateway through the merged
/// catalog's routes, one server of a `/servers/{id}/mcp` client under the server's own names, or a profile
/// through its view under the profile's names. Routes for its names and the errors for names it cannot route,
/// its list pages, its capabilities, instructions and cache hints.
///
/// Reads the registry's snapshot and writes nothing but the list pages it serializes once per generation.
final class CatalogViews: Sendable {
    /// The merged lists' pages as clients receive them, serialized once per catalog generation.
    let listPages = ListPageCache()
    let registry: ServerRegistry
    let separator: String

    init(registry: ServerRegistry, separator: String) {
        self.registry = registry
        self.separator = separator
    }

    /// Where tool `name` goes in `scope`.
    func toolRoute(
        _ name: String,
        in scope: CatalogScope,
        _ snapshot: ServerRegistry.Snapshot
    ) throws(JSONRPCError) -> Route {
        if case .profile(let profile) = scope {
            guard let route = snapshot.profiles[profile]?.toolRoutes[name] else {
                if let withheld = snapshot.catalog.withheldTool(name),
                    snapshot.includes(withheld.route.server, in: scope)
                {
                    throw ToolPinning.withheldTool(name, route: withheld.route, changedFields: withheld.changedFields)
                }
                throw .invalidParams("Unknown tool: \(name) (profile \(profile))")
            }
            return route
        }
        guard case .server(let id) = scope else {
            guard let route = snapshot.catalog.routeTool(name) else { throw unknownTool(name, snapshot) }
            return route
        }
        let catalog = try connectedCatalog(id, snapshot)
        guard let link = snapshot.links[id], link.spec.toolFilter.permits(name), catalog.toolNames.contains(name) else {
            throw .invalidParams("Unknown tool: \(name)")
        }
        let route = Route(server: id, name: name)
        if let changedFields = link.pinMarks.withheld[name] {
            throw ToolPinning.withheldTool(name, route: route, changedFields: changedFields)
        }
        return route
    }

    /// Where prompt `name` goes in `scope`.
    func promptRoute(
        _ name: String,
        in scope: CatalogScope,
        _ snapshot: ServerRegistry.Snapshot
    ) throws(JSONRPCError) -> Route {
        guard case .server(let id) = scope else {
            guard let route = snapshot.catalog.promptRoutes[name], snapshot.includes(route.server, in: scope) else {
                throw unknownName("prompt", name, snapshot)
            }
            return route
        }
        let catalog = try connectedCatalog(id, snapshot)
        guard catalog.promptNames.contains(name) else {
            throw .invalidParams("Unknown prompt: \(name)")
        }
        return Route(server: id, name: name)
    }

    /// The longest resource URI a client may name, in UTF-8 bytes: a read, completion or subscription of a
    /// longer one is refused before it is matched against any template.
    package static let maxResourceURIBytes = 16 * 1024

    /// The server that answers for resource `uri` in `scope`; `nil` when none does. Throws for a URI past
    /// ``maxResourceURIBytes``.
    func resourceServer(
        _ uri: String,
        in scope: CatalogScope,
        _ snapshot: ServerRegistry.Snapshot
    ) throws(JSONRPCError) -> String? {
        guard uri.utf8.count <= Self.maxResourceURIBytes else {
            throw .invalidParams(
                "The resource URI is \(uri.utf8.count) bytes long; this gateway accepts URIs of up to "
                    + "\(Self.maxResourceURIBytes) bytes"
            )
        }
        return switch scope {
        case .gateway: snapshot.catalog.routeResource(uri)
        case .server(let id): snapshot.links[id] == nil ? nil : id
        case .profile: snapshot.catalog.routeResource(uri).flatMap { snapshot.includes($0, in: scope) ? $0 : nil }
        }
    }

    /// One server's list of `kind` as the server gave it (its tool filter applied, tools pinning withholds
    /// left out and those it flags marked), for a client of that server alone; empty while it is not
    /// connected.
    func scopedList(_ kind: ServerCatalog.Kind, of id: String, _ snapshot: ServerRegistry.Snapshot) -> [JSONValue] {
        guard let link = snapshot.links[id], link.state.isConnected, let catalog = link.catalog else { return [] }
        let items = catalog[kind]
        guard kind == .tools else { return items.map { .object($0) } }
        return items.compactMap { tool in
            let name = tool["name"]?.stringValue ?? ""
            guard link.spec.toolFilter.permits(name) else { return nil }
            return link.pinMarks.exposing(tool, name: name).map(JSONValue.object)
        }
    }

    /// Server `id`'s lists, or the error a client of it alone hears while it is not connected.
    private func connectedCatalog(
        _ id: String,
        _ snapshot: ServerRegistry.Snapshot
    ) throws(JSONRPCError) -> ServerCatalog {
        guard let link = snapshot.links[id] else { throw .invalidParams("There is no MCP server \(id)") }
        guard link.state.isConnected, let catalog = link.catalog else {
            throw .upstreamUnavailable(Self.notConnectedMessage(id, link.state), server: id)
        }
        return catalog
    }

    /// A tool name the catalog cannot route. A bare name that several servers have is ambiguous, and the
    /// client learns which exposed names to call instead of a misleading "unknown".
    func unknownTool(_ name: String, _ snapshot: ServerRegistry.Snapshot) -> JSONRPCError {
        if let withheld = snapshot.catalog.withheldTool(name) {
            return ToolPinning.withheldTool(name, route: withheld.route, changedFields: withheld.changedFields)
        }
        let candidates = snapshot.catalog.bareToolCandidates(name)
        guard candidates.isEmpty else {
            return .invalidParams(
                "Ambiguous tool name: \(name) is offered by \(candidates.count) servers; "
                    + "call one of \(candidates.joined(separator: ", "))"
            )
        }
        return unknownName("tool", name, snapshot)
    }

    /// A name the live catalog does not have. When it carries the prefix of a server that is not connected,
    /// the client learns which server and why, instead of a bare "unknown".
    func unknownName(_ kind: String, _ name: String, _ snapshot: ServerRegistry.Snapshot) -> JSONRPCError {
        let separator = separator
        for spec in snapshot.specs where name.hasPrefix(spec.prefix + separator) {
            guard let link = snapshot.links[spec.id], !link.state.isConnected else { continue }
            return .upstreamUnavailable(Self.notConnectedMessage(spec.id, link.state), server: spec.id)
        }
        return .invalidParams("Unknown \(kind): \(name)")
    }

    static func notConnectedMessage(_ server: String, _ state: ConnectionState) -> String {
        var message = "MCP server '\(server)' is not connected (state: \(state.name)"
        if let error = state.lastError { message += ", last error: \(error.message)" }
        return message + ")"
    }
}
