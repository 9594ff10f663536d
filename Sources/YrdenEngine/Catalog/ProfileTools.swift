import YrdenConfig
import YrdenProtocol

/// One server's tools as a profile shows them: those its patterns let through, renamed and re-described.
///
/// Depends on that server's tools and the profile's tool settings alone, so a view keeps it until one of those
/// changes: when one server of many changes its tools, only its part is made again.
struct ProfileToolPart: Sendable {
    struct Entry: Sendable {
        /// The name on `/mcp`, and the one the profile shows.
        var name: String
        var shown: String
        var route: Route
        var value: JSONValue
        /// The tool's digest in the aggregate, with what the profile changed of it.
        var digest: Int
    }

    /// The aggregate's digests of the server's tools this part was made from (``AggregatedCatalog/toolDigests``).
    let sourceDigests: ArraySlice<Int>
    let entries: [Entry]

    init(_ part: CatalogPart, of catalog: AggregatedCatalog, spec: ProfileSpec, matcher: ToolFilterMatcher) {
        sourceDigests = catalog.toolDigests[part.tools]
        var entries: [Entry] = []
        for index in part.tools {
            let tool = catalog.tools[index]
            guard let name = tool["name"]?.stringValue, matcher.permits(name), let route = catalog.toolRoutes[name]
            else { continue }
            let shown = spec.rename[name] ?? name
            let description = spec.descriptions[shown]
            // The aggregate's definition as it is (shared, not copied) unless the profile changes it.
            guard shown != name || description != nil, case .object(var object) = tool else {
                entries.append(
                    Entry(name: name, shown: shown, route: route, value: tool, digest: catalog.toolDigests[index])
                )
                continue
            }
            object["name"] = .string(shown)
            if let description { object["description"] = .string(description) }
            var hasher = Hasher()
            hasher.combine(catalog.toolDigests[index])
            hasher.combine(shown)
            hasher.combine(description)
            entries.append(
                Entry(name: name, shown: shown, route: route, value: .object(object), digest: hasher.finalize())
            )
        }
        self.entries = entries
    }

    /// Whether it was made from what `catalog` has of `part`'s server now.
    func isCurrent(for part: CatalogPart, of catalog: AggregatedCatalog) -> Bool {
        sourceDigests.elementsEqual(catalog.toolDigests[part.tools])
    }
}

/// The tools a profile sees, put together from its servers' parts in config order: where two tools would
/// share a name once renamed, the first keeps it.
struct ProfileToolTable: Sendable {
    /// The servers whose parts it was made of, in order.
    var servers: [String] = []
    var visibleTools: [JSONValue] = []
    var routes: [String: Route] = [:]
    var names: [Route: String] = [:]
    var positions: [String: Int] = [:]
    var conflicts: [String] = []
    /// A hash of the visible tools (each one's digest in order).
    var fingerprint = 0

    static let empty = ProfileToolTable()

    init() {}

    init(profile: String, parts: [(server: String, part: ProfileToolPart)]) {
        let count = parts.reduce(0) { $0 + $1.part.entries.count }
        visibleTools.reserveCapacity(count)
        routes.reserveCapacity(count)
        names.reserveCapacity(count)
        positions.reserveCapacity(count)
        var hasher = Hasher()
        for (server, part) in parts {
            servers.append(server)
            for entry in part.entries {
                guard let owner = routes.updateValue(entry.route, forKey: entry.shown) else {
                    names[entry.route] = entry.shown
                    positions[entry.shown] = visibleTools.count
                    visibleTools.append(entry.value)
                    hasher.combine(entry.digest)
                    continue
                }
                routes[entry.shown] = owner
                conflicts.append(
                    "profile \(profile): \(entry.name) would be called \(entry.shown) like the tool of "
                        + "\(owner.server) already named so; it is left out (rename one of them)"
                )
            }
        }
        fingerprint = hasher.finalize()
    }
}
