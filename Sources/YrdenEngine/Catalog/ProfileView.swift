import YrdenConfig
import YrdenProtocol

/// One profile's catalog: the aggregate narrowed to the profile's servers and tools, renamed and re-described
/// as the profile says. Built with the aggregate (once per change of either, never per request or session), then
/// only read, so its lists keep their order and content between changes: good for a host's prompt cache.
///
/// A class for the same reason as ``AggregatedCatalog``: a snapshot's copy retains one reference. Unchecked:
/// every property is set in `init` and never changed after.
package final class ProfileView: @unchecked Sendable {
    package let spec: ProfileSpec
    /// The tools the profile sees, under its names (in search mode, what the search runs over).
    package private(set) var visibleTools: [JSONValue] = []
    /// The profile's name of each visible tool → where it goes.
    package private(set) var toolRoutes: [String: Route] = [:]
    /// Where each visible tool goes → the profile's name for it.
    package private(set) var toolNames: [Route: String] = [:]
    /// The profile's name of each visible tool → its place in ``visibleTools``.
    private var positions: [String: Int] = [:]
    package private(set) var prompts: [JSONValue] = []
    package private(set) var resources: [JSONValue] = []
    package private(set) var resourceTemplates: [JSONValue] = []
    /// Names two tools would share once renamed: the first keeps it, the other is left out and named here.
    package private(set) var conflicts: [String] = []
    /// What `tools/list` returns: the visible tools, or the search and call tools in search mode.
    package private(set) var tools: [JSONValue] = []
    private var fingerprints: [ServerCatalog.Kind: Int] = [:]

    package init(spec: ProfileSpec, catalog: AggregatedCatalog) {
        self.spec = spec
        for tool in catalog.tools {
            guard case .object(var object) = tool, let name = object["name"]?.stringValue,
                let route = catalog.toolRoutes[name], spec.includes(server: route.server), spec.tools.permits(name)
            else { continue }
            let shown = spec.rename[name] ?? name
            if let owner = toolRoutes[shown] {
                conflicts.append(
                    "profile \(spec.name): \(name) would be called \(shown) like the tool of \(owner.server) "
                        + "already named so; it is left out (rename one of them)"
                )
                continue
            }
            object["name"] = .string(shown)
            if let description = spec.descriptions[shown] { object["description"] = .string(description) }
            toolRoutes[shown] = route
            toolNames[route] = shown
            positions[shown] = visibleTools.count
            visibleTools.append(.object(object))
        }
        prompts = catalog.prompts.filter { prompt in
            guard let name = prompt["name"]?.stringValue, let route = catalog.promptRoutes[name] else { return false }
            return spec.includes(server: route.server)
        }
        resources = catalog.resources.filter { resource in
            guard let uri = resource["uri"]?.stringValue, let owner = catalog.resourceOwners[uri] else { return false }
            return spec.includes(server: owner)
        }
        resourceTemplates = zip(catalog.resourceTemplates, catalog.templateOwners).filter {
            spec.includes(server: $0.1.server)
        }.map(\.0)
        tools = spec.toolMode == .all ? visibleTools : ToolSearchTools.definitions(for: self)
        fingerprints = [
            .tools: Self.fingerprint(tools), .prompts: Self.fingerprint(prompts),
            .resources: Self.fingerprint(resources), .resourceTemplates: Self.fingerprint(resourceTemplates),
        ]
    }

    /// The definition of the visible tool the profile calls `name`.
    package func definition(of name: String) -> JSONValue? {
        positions[name].map { visibleTools[$0] }
    }

    /// The list of one kind, as the profile's clients see it.
    package subscript(kind: ServerCatalog.Kind) -> [JSONValue] {
        switch kind {
        case .tools: tools
        case .prompts: prompts
        case .resources: resources
        case .resourceTemplates: resourceTemplates
        }
    }

    /// The kinds of list (resource templates counted as resources) that differ from `other`'s.
    package func changedKinds(since other: ProfileView?) -> [ServerCatalog.Kind] {
        [ServerCatalog.Kind.tools, .prompts, .resources].filter { kind in
            guard let other else { return true }
            let kinds: [ServerCatalog.Kind] = kind == .resources ? [.resources, .resourceTemplates] : [kind]
            return kinds.contains { fingerprints[$0] != other.fingerprints[$0] }
        }
    }

    /// How many visible tools each server contributes, in config order: what the search tool says it reaches.
    package var toolCountsByServer: [(server: String, count: Int)] {
        var order: [String] = []
        var counts: [String: Int] = [:]
        for tool in visibleTools {
            guard let name = tool["name"]?.stringValue, let server = toolRoutes[name]?.server else { continue }
            if counts[server] == nil { order.append(server) }
            counts[server, default: 0] += 1
        }
        return order.map { ($0, counts[$0] ?? 0) }
    }

    private static func fingerprint(_ items: [JSONValue]) -> Int {
        var hasher = Hasher()
        for item in items { hasher.combine(item) }
        return hasher.finalize()
    }
}
