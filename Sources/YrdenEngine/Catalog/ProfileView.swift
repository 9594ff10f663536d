import YrdenConfig
import YrdenProtocol

/// One profile's catalog: the aggregate narrowed to the profile's servers and tools, renamed and re-described
/// as the profile says. Built with the aggregate (once per change of either, never per request or session), then
/// only read, so its lists keep their order and content between changes: good for a host's prompt cache.
///
/// Built from the view before it: the profile's patterns are compiled once per spec, and a server's tools are
/// matched again only when they changed (``ProfileToolPart``), so one server of many churning its tools costs
/// each profile that server's tools, not the whole catalog.
///
/// A class for the same reason as ``AggregatedCatalog``: a snapshot's copy retains one reference. Unchecked:
/// every property is set in `init` and never changed after.
package final class ProfileView: @unchecked Sendable {
    package let spec: ProfileSpec
    /// The spec's tool patterns, compiled.
    private let matcher: ToolFilterMatcher
    /// Each included server's tools as the profile shows them, kept for the next view.
    private var toolParts: [String: ProfileToolPart] = [:]
    private var toolTable = ProfileToolTable.empty
    package private(set) var prompts: [JSONValue] = []
    package private(set) var resources: [JSONValue] = []
    package private(set) var resourceTemplates: [JSONValue] = []
    /// What `tools/list` returns: the visible tools, or the search and call tools in search mode.
    package private(set) var tools: [JSONValue] = []
    private var fingerprints: [ServerCatalog.Kind: Int] = [:]
    /// How many servers' tools this view matched against the patterns anew rather than took from the view
    /// before: what the change cost.
    private(set) var partsMatched = 0

    /// The tools the profile sees, under its names (in search mode, what the search runs over).
    package var visibleTools: [JSONValue] { toolTable.visibleTools }
    /// The profile's name of each visible tool → where it goes.
    package var toolRoutes: [String: Route] { toolTable.routes }
    /// Where each visible tool goes → the profile's name for it.
    package var toolNames: [Route: String] { toolTable.names }
    /// Names two tools would share once renamed: the first keeps it, the other is left out and named here.
    package var conflicts: [String] { toolTable.conflicts }

    /// The view of `catalog`, taking from `previous` (the same profile's view of an earlier catalog) what is
    /// still the same.
    package init(spec: ProfileSpec, catalog: AggregatedCatalog, previous: ProfileView? = nil) {
        self.spec = spec
        let sameTools =
            previous.map {
                $0.spec.tools == spec.tools && $0.spec.rename == spec.rename
                    && $0.spec.descriptions == spec.descriptions
            } ?? false
        if let previous, previous.spec.tools == spec.tools {
            matcher = previous.matcher
        } else {
            matcher = ToolFilterMatcher(spec.tools)
        }
        let included = catalog.serverParts.filter { spec.includes(server: $0.server) }
        let parts = included.map { part -> (server: String, part: ProfileToolPart) in
            if sameTools, let kept = previous?.toolParts[part.server], kept.isCurrent(for: part, of: catalog) {
                return (part.server, kept)
            }
            partsMatched += 1
            return (part.server, ProfileToolPart(part, of: catalog, spec: spec, matcher: matcher))
        }
        toolParts = Dictionary(parts.map { ($0.server, $0.part) }, uniquingKeysWith: { first, _ in first })
        if let previous, sameTools, partsMatched == 0, previous.toolTable.servers == parts.map(\.server) {
            toolTable = previous.toolTable
        } else {
            toolTable = ProfileToolTable(profile: spec.name, parts: parts)
        }
        let everyServer = included.count == catalog.serverParts.count
        prompts = everyServer ? catalog.prompts : Self.slices(.prompts, of: included, in: catalog)
        resources = everyServer ? catalog.resources : Self.slices(.resources, of: included, in: catalog)
        resourceTemplates =
            everyServer ? catalog.resourceTemplates : Self.slices(.resourceTemplates, of: included, in: catalog)
        tools = spec.toolMode == .all ? visibleTools : ToolSearchTools.definitions(for: self)
        fingerprints = [
            .tools: spec.toolMode == .all ? toolTable.fingerprint : Self.fingerprint(tools),
            .prompts: Self.fingerprint(.prompts, of: included),
            .resources: Self.fingerprint(.resources, of: included),
            .resourceTemplates: Self.fingerprint(.resourceTemplates, of: included),
        ]
    }

    /// The definition of the visible tool the profile calls `name`.
    package func definition(of name: String) -> JSONValue? {
        toolTable.positions[name].map { toolTable.visibleTools[$0] }
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

    /// The items of `kind` of the `included` servers, in config order.
    private static func slices(
        _ kind: ServerCatalog.Kind,
        of included: [CatalogPart],
        in catalog: AggregatedCatalog
    ) -> [JSONValue] {
        let list = catalog[kind]
        var items: [JSONValue] = []
        items.reserveCapacity(included.reduce(0) { $0 + $1[kind].count })
        for part in included { items += list[part[kind]] }
        return items
    }

    /// A hash of the list of `kind` the `included` servers make up: the fingerprint of each one's items of it,
    /// in order (a server without any adds nothing, so its coming and going changes nothing).
    private static func fingerprint(_ kind: ServerCatalog.Kind, of included: [CatalogPart]) -> Int {
        var hasher = Hasher()
        for part in included where !part[kind].isEmpty {
            hasher.combine(part.fingerprints[kind])
        }
        return hasher.finalize()
    }

    private static func fingerprint(_ items: [JSONValue]) -> Int {
        var hasher = Hasher()
        for item in items { hasher.combine(item) }
        return hasher.finalize()
    }
}
