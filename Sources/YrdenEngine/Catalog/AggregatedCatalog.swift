import YrdenProtocol

/// Where a name on the aggregated endpoint leads: which server, and the name that server knows it by.
package struct Route: Sendable, Hashable {
    package var server: String
    package var name: String
}

/// One connected upstream's contribution to the aggregate, in config order.
package struct CatalogSource: Sendable {
    package var server: String
    package var prefix: String
    package var permitsTool: @Sendable (String) -> Bool
    package var catalog: ServerCatalog
    /// The tools pinning withholds or flags.
    package var pinMarks: ToolPinMarks
    /// The server's tools and prompts already prepared for the aggregate; `nil`: prepared while merging.
    package var contribution: CatalogContribution?

    package init(
        server: String,
        prefix: String,
        permitsTool: @escaping @Sendable (String) -> Bool = { _ in true },
        catalog: ServerCatalog,
        pinMarks: ToolPinMarks = ToolPinMarks(),
        contribution: CatalogContribution? = nil
    ) {
        self.server = server
        self.prefix = prefix
        self.permitsTool = permitsTool
        self.catalog = catalog
        self.pinMarks = pinMarks
        self.contribution = contribution
    }
}

/// The union of every connected upstream's tools, prompts and resources, and the tables that route calls.
///
/// Built in one pass whenever an upstream's part changes, then only read. Tools and prompts are renamed
/// `<prefix><separator><name>`; resources keep their URIs. On a clash the server listed first in the config
/// keeps the name or URI, and the clash is reported, never silently merged.
///
/// A class, so that every request's copy of the gateway's snapshot retains one reference rather than each of
/// its fourteen tables. Unchecked: every property is set in `init` and never changed after.
package final class AggregatedCatalog: @unchecked Sendable {
    package private(set) var tools: [JSONValue] = []
    package private(set) var prompts: [JSONValue] = []
    package private(set) var resources: [JSONValue] = []
    package private(set) var resourceTemplates: [JSONValue] = []
    package private(set) var toolRoutes: [String: Route] = [:]
    package private(set) var promptRoutes: [String: Route] = [:]
    /// Tools pinning withholds until an operator approves them, by exposed name, with the fields that
    /// changed: a call to one is told why, not "unknown tool".
    package private(set) var withheldTools: [String: (route: Route, changedFields: [String])] = [:]
    /// Upstream tool names that exactly one server has: MCP Apps call tools by these bare names.
    package private(set) var uniqueBareTools: [String: Route] = [:]
    /// Upstream tool names that several servers have, with the exposed names to call instead.
    package private(set) var ambiguousBareTools: [String: [String]] = [:]
    package private(set) var resourceOwners: [String: String] = [:]
    package private(set) var templateOwners: [(template: URITemplate, server: String)] = []
    /// `scheme://authority` of every listed resource and template → who has it: where an unlisted URI goes
    /// (see ``routeResource(_:)``), looked up, not found by taking the origin of 100,000 resources per read.
    private var originOwners: [String: OriginOwner] = [:]
    /// Human-readable descriptions of every clash found while merging.
    package private(set) var conflicts: [String] = []
    /// Per server, how many tools, prompts and resources it contributes.
    package private(set) var counts: [String: (tools: Int, prompts: Int, resources: Int)] = [:]
    /// Per kind, a hash of the list clients see (each exposed name with its item's digest), so telling
    /// whether a list changed costs one comparison, not a walk through every schema.
    private var fingerprints: [ServerCatalog.Kind: Int] = [:]
    /// Each server's place in the lists, in config order, so a profile's view rebuilds only the servers whose
    /// part changed.
    package private(set) var serverParts: [CatalogPart] = []
    /// Parallel to ``tools``: each tool's digest with its exposed name's hash (what the fingerprint is made of).
    package private(set) var toolDigests: [Int] = []

    package static let empty = AggregatedCatalog(sources: [], separator: "")

    package init(sources: [CatalogSource], separator: String) {
        let parts = sources.map { source in
            source.contribution
                ?? CatalogContribution(
                    catalog: source.catalog,
                    prefix: source.prefix,
                    separator: separator,
                    pinMarks: source.pinMarks,
                    permitsTool: source.permitsTool
                )
        }
        // Sized once: growing these tables rehashes every name already in them, over and over for 10,000 tools.
        let toolCount = parts.reduce(0) { $0 + $1.tools.count }
        let promptCount = parts.reduce(0) { $0 + $1.prompts.count }
        toolRoutes.reserveCapacity(toolCount)
        tools.reserveCapacity(toolCount)
        toolDigests.reserveCapacity(toolCount)
        resourceOwners.reserveCapacity(sources.reduce(0) { $0 + $1.catalog.resources.count })
        promptRoutes.reserveCapacity(promptCount)
        prompts.reserveCapacity(promptCount)
        // Each upstream tool name's first owner; names that turn out to have several move to `ambiguousBareTools`.
        var bareOwners: [String: (route: Route, exposed: String)] = [:]
        bareOwners.reserveCapacity(toolCount)
        var listed = ListedDigests()
        for (source, part) in zip(sources, parts) {
            merge(part, of: source, bareOwners: &bareOwners, listed: &listed)
        }
        for name in ambiguousBareTools.keys { bareOwners.removeValue(forKey: name) }
        // Built at its own size: `bareOwners` was sized for every tool, and servers often share tool names.
        uniqueBareTools.reserveCapacity(bareOwners.count)
        for (name, owner) in bareOwners { uniqueBareTools[name] = owner.route }
        fingerprints = listed.fingerprints
    }

    /// Adds one server's part to the lists in config order, claiming its names (a name taken by an earlier
    /// server is a conflict), and notes its place and its own fingerprints for the profile views.
    private func merge(
        _ part: CatalogContribution,
        of source: CatalogSource,
        bareOwners: inout [String: (route: Route, exposed: String)],
        listed: inout ListedDigests
    ) {
        var own = ListedDigests()
        let starts = (tools.count, prompts.count, resources.count, resourceTemplates.count)
        for tool in part.withheld {
            withheldTools[tool.exposed] = (Route(server: source.server, name: tool.name), tool.changedFields)
        }
        let count = (
            tools: mergeTools(part.tools, of: source.server, bareOwners: &bareOwners, &listed, &own),
            prompts: mergePrompts(part.prompts, of: source.server, &listed, &own),
            resources: mergeResources(source.catalog, of: source.server, &listed, &own)
        )
        mergeTemplates(source.catalog, of: source.server, &listed, &own)
        counts[source.server] = count
        serverParts.append(
            CatalogPart(
                server: source.server,
                tools: starts.0..<tools.count,
                prompts: starts.1..<prompts.count,
                resources: starts.2..<resources.count,
                resourceTemplates: starts.3..<resourceTemplates.count,
                fingerprints: own.fingerprints
            )
        )
    }

    /// A server's tools, each under its exposed name unless an earlier server took it; returns how many.
    private func mergeTools(
        _ items: [CatalogContribution.Item],
        of server: String,
        bareOwners: inout [String: (route: Route, exposed: String)],
        _ listed: inout ListedDigests,
        _ own: inout ListedDigests
    ) -> Int {
        var count = 0
        for tool in items {
            let route = Route(server: server, name: tool.name)
            guard Self.claim(tool.exposed, route, in: &toolRoutes, conflicts: &conflicts, kind: "tool") else {
                continue
            }
            if let first = bareOwners.updateValue((route, tool.exposed), forKey: tool.name) {
                bareOwners[tool.name] = first
                ambiguousBareTools[tool.name, default: [first.exposed]].append(tool.exposed)
            }
            listed.add(.tools, tool.exposedHash, tool.digest)
            own.add(.tools, tool.exposedHash, tool.digest)
            toolDigests.append(Self.digest(tool.exposedHash, tool.digest))
            tools.append(tool.value)
            count += 1
        }
        return count
    }

    /// A server's prompts, each under its exposed name unless an earlier server took it; returns how many.
    private func mergePrompts(
        _ items: [CatalogContribution.Item],
        of server: String,
        _ listed: inout ListedDigests,
        _ own: inout ListedDigests
    ) -> Int {
        var count = 0
        for prompt in items {
            let route = Route(server: server, name: prompt.name)
            guard Self.claim(prompt.exposed, route, in: &promptRoutes, conflicts: &conflicts, kind: "prompt")
            else { continue }
            listed.add(.prompts, prompt.exposedHash, prompt.digest)
            own.add(.prompts, prompt.exposedHash, prompt.digest)
            prompts.append(prompt.value)
            count += 1
        }
        return count
    }

    /// A server's resources, each URI served by the first server that lists it; returns how many.
    private func mergeResources(
        _ catalog: ServerCatalog,
        of server: String,
        _ listed: inout ListedDigests,
        _ own: inout ListedDigests
    ) -> Int {
        var count = 0
        for (resource, digest) in zip(catalog.resources, catalog.digests(.resources)) {
            guard let uri = resource["uri"]?.stringValue else { continue }
            if let owner = resourceOwners[uri] {
                conflicts.append("resource \(uri) is offered by both \(owner) and \(server); \(owner) serves it")
                continue
            }
            resourceOwners[uri] = server
            Self.note(origin: Self.origin(of: uri), of: server, in: &originOwners)
            listed.add(.resources, uri.hashValue, digest)
            own.add(.resources, uri.hashValue, digest)
            resources.append(.object(resource))
            count += 1
        }
        return count
    }

    /// A server's resource templates, every one kept (a URI is matched against them in config order).
    private func mergeTemplates(
        _ catalog: ServerCatalog,
        of server: String,
        _ listed: inout ListedDigests,
        _ own: inout ListedDigests
    ) {
        for (template, digest) in zip(catalog.resourceTemplates, catalog.digests(.resourceTemplates)) {
            guard let pattern = template["uriTemplate"]?.stringValue else { continue }
            listed.add(.resourceTemplates, pattern.hashValue, digest)
            own.add(.resourceTemplates, pattern.hashValue, digest)
            templateOwners.append((URITemplate(pattern), server))
            Self.note(origin: Self.origin(of: pattern), of: server, in: &originOwners)
            resourceTemplates.append(.object(template))
        }
    }

    /// Whether the list of `kind` clients see differs from `other`'s, by fingerprint (a 64-bit hash: two
    /// different lists pass for equal with negligible odds, and would only miss one list-changed notice).
    package func listDiffers(_ kind: ServerCatalog.Kind, from other: AggregatedCatalog) -> Bool {
        fingerprints[kind] != other.fingerprints[kind]
    }

    private static func digest(_ exposedHash: Int, _ digest: Int) -> Int {
        var hasher = Hasher()
        hasher.combine(exposedHash)
        hasher.combine(digest)
        return hasher.finalize()
    }

    private static func claim(
        _ exposed: String,
        _ route: Route,
        in table: inout [String: Route],
        conflicts: inout [String],
        kind: String
    ) -> Bool {
        // One hash in the common case: insert, and put the owner back on a clash.
        guard let owner = table.updateValue(route, forKey: exposed) else { return true }
        table[exposed] = owner
        conflicts.append(
            "\(kind) name \(exposed) from \(route.server) clashes with one from \(owner.server); "
                + "\(owner.server) keeps it (give one server a different prefix)"
        )
        return false
    }

    /// The merged list of one kind, as clients see it.
    package subscript(kind: ServerCatalog.Kind) -> [JSONValue] {
        switch kind {
        case .tools: tools
        case .prompts: prompts
        case .resources: resources
        case .resourceTemplates: resourceTemplates
        }
    }

    /// The route of a tool name as a client sent it: the exposed name, or a bare name only one server has.
    package func routeTool(_ name: String) -> Route? {
        toolRoutes[name] ?? uniqueBareTools[name]
    }

    /// The tool pinning withholds under `name` as a client sent it: its exposed name, or a bare name that
    /// only one withheld tool has (the few withheld tools are searched, only when a call found no route).
    package func withheldTool(_ name: String) -> (route: Route, changedFields: [String])? {
        if let withheld = withheldTools[name] { return withheld }
        let bare = withheldTools.values.filter { $0.route.name == name }
        return bare.count == 1 ? bare.first : nil
    }

    /// For a bare tool name that several servers have, the exposed names a client can call instead (in
    /// config order); empty when the name is not ambiguous.
    package func bareToolCandidates(_ name: String) -> [String] {
        toolRoutes[name] == nil ? ambiguousBareTools[name] ?? [] : []
    }

    /// The server that should answer `resources/read` for `uri`: a listed resource, then a template that
    /// matches, then a server whose listed resources share the URI's scheme and authority (for `ui://` pages
    /// and links that tools hand out without listing them).
    package func routeResource(_ uri: String) -> String? {
        if let owner = resourceOwners[uri] { return owner }
        if let match = templateOwners.first(where: { $0.template.matches(uri) }) { return match.server }
        let origin = Self.origin(of: uri)
        guard !origin.isEmpty, case .one(let server)? = originOwners[origin] else { return nil }
        return server
    }

    /// Who has resources or templates of one origin: one server, or several (then a URI of that origin that
    /// none lists or templates goes nowhere).
    private enum OriginOwner {
        case one(String)
        case several
    }

    private static func note(origin: String, of server: String, in owners: inout [String: OriginOwner]) {
        guard !origin.isEmpty else { return }
        switch owners[origin] {
        case nil: owners[origin] = .one(server)
        case .one(let owner) where owner != server: owners[origin] = .several
        default: break
        }
    }

    /// `scheme://authority` of a URI (or just `scheme:` when there is no authority).
    static func origin(of uri: String) -> String {
        guard let colon = uri.firstIndex(of: ":") else { return "" }
        let rest = uri[uri.index(after: colon)...]
        guard rest.hasPrefix("//") else { return String(uri[...colon]) }
        let authorityStart = rest.index(rest.startIndex, offsetBy: 2)
        let authorityEnd =
            rest[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        return String(uri[..<authorityEnd])
    }
}

/// One server's items in the merged lists (contiguous, since servers are merged one after another) and the
/// fingerprint of each of its lists there.
package struct CatalogPart: Sendable {
    package var server: String
    package var tools: Range<Int>
    package var prompts: Range<Int>
    package var resources: Range<Int>
    package var resourceTemplates: Range<Int>
    package var fingerprints: [ServerCatalog.Kind: Int]

    /// Where its items of `kind` are.
    package subscript(kind: ServerCatalog.Kind) -> Range<Int> {
        switch kind {
        case .tools: tools
        case .prompts: prompts
        case .resources: resources
        case .resourceTemplates: resourceTemplates
        }
    }
}

/// Accumulates, per kind, the fingerprint of the merged list: each exposed name's hash and its item's digest,
/// in list order.
private struct ListedDigests {
    // One hasher per kind in its own field: a dictionary of hashers hashed the kind twice for every item.
    private var tools = Hasher()
    private var prompts = Hasher()
    private var resources = Hasher()
    private var resourceTemplates = Hasher()

    mutating func add(_ kind: ServerCatalog.Kind, _ exposed: Int, _ digest: Int) {
        switch kind {
        case .tools: Self.combine(&tools, exposed, digest)
        case .prompts: Self.combine(&prompts, exposed, digest)
        case .resources: Self.combine(&resources, exposed, digest)
        case .resourceTemplates: Self.combine(&resourceTemplates, exposed, digest)
        }
    }

    private static func combine(_ hasher: inout Hasher, _ exposed: Int, _ digest: Int) {
        hasher.combine(exposed)
        hasher.combine(digest)
    }

    var fingerprints: [ServerCatalog.Kind: Int] {
        [
            .tools: tools.finalize(), .prompts: prompts.finalize(), .resources: resources.finalize(),
            .resourceTemplates: resourceTemplates.finalize(),
        ]
    }
}
