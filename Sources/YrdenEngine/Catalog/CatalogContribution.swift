import Synchronization
import YrdenConfig
import YrdenProtocol

/// One server's tools and prompts as the aggregate shows them: filtered, renamed `<prefix><separator><name>`,
/// each with its digest; tools withheld by pinning left out (and kept aside, so a call to one can be told
/// why), tools flagged by pinning marked.
///
/// Preparing them is most of the cost of building the aggregate (a copy of every item with its new name), so
/// a server's part is prepared once per list it sends (``CatalogContributions``), and a rebuild merges the
/// prepared parts of every server instead of renaming them all again.
package struct CatalogContribution: Sendable {
    package struct Item: Sendable {
        /// The name clients see.
        var exposed: String
        /// Its hash, for the aggregate's list fingerprint.
        var exposedHash: Int
        /// The name the server knows it by.
        var name: String
        var value: JSONValue
        var digest: Int
    }

    var tools: [Item] = []
    var prompts: [Item] = []
    /// Tools withheld by pinning: exposed name, upstream name, and the fields that changed.
    var withheld: [(exposed: String, name: String, changedFields: [String])] = []

    init(
        catalog: ServerCatalog,
        prefix: String,
        separator: String,
        pinMarks: ToolPinMarks = ToolPinMarks(),
        permitsTool: (String) -> Bool
    ) {
        // At their size: grown by doubling, the arrays of 200 servers held a megabyte of unused capacity.
        tools.reserveCapacity(catalog.tools.count)
        prompts.reserveCapacity(catalog.prompts.count)
        for (tool, digest) in zip(catalog.tools, catalog.digests(.tools)) {
            guard let name = tool["name"]?.stringValue, permitsTool(name) else { continue }
            guard pinMarks.isEmpty else {
                appendMarked(tool, name: name, digest: digest, pinMarks, prefix: prefix, separator: separator)
                continue
            }
            tools.append(Self.item(tool, name: name, digest: digest, prefix: prefix, separator: separator))
        }
        for (prompt, digest) in zip(catalog.prompts, catalog.digests(.prompts)) {
            guard let name = prompt["name"]?.stringValue else { continue }
            prompts.append(Self.item(prompt, name: name, digest: digest, prefix: prefix, separator: separator))
        }
    }

    private init() {}

    /// This part with pinning's marks moved from `old` to `new` (an approval, a definition changed): the
    /// items of the tools whose marks did not move are kept as they are, and only the others prepared again.
    /// `catalog` and `digests` are the ones this part was prepared from (the digests of its tools).
    func remarked(
        catalog: ServerCatalog,
        digests: [Int],
        from old: ToolPinMarks,
        to new: ToolPinMarks,
        prefix: String,
        separator: String,
        permitsTool: (String) -> Bool
    ) -> CatalogContribution {
        var moved = Set<String>()
        for (before, after) in [(old.withheld, new.withheld), (old.flagged, new.flagged)] {
            for (name, fields) in before where after[name] != fields { moved.insert(name) }
            for (name, fields) in after where before[name] != fields { moved.insert(name) }
        }
        var part = CatalogContribution()
        part.prompts = prompts
        part.tools.reserveCapacity(max(0, tools.count + old.withheld.count - new.withheld.count))
        // This part's tools follow the catalog's order, so each one kept is met in a single walk.
        var next = 0
        for (tool, digest) in zip(catalog.tools, digests) {
            guard let name = tool["name"]?.stringValue, permitsTool(name) else { continue }
            let kept = next < tools.count && tools[next].name == name ? tools[next] : nil
            if kept != nil { next += 1 }
            if let kept, !moved.contains(name) {
                part.tools.append(kept)
            } else {
                part.appendMarked(tool, name: name, digest: digest, new, prefix: prefix, separator: separator)
            }
        }
        return part
    }

    /// A tool of a server some of whose tools pinning withholds or flags.
    private mutating func appendMarked(
        _ tool: JSONObject,
        name: String,
        digest: Int,
        _ pinMarks: ToolPinMarks,
        prefix: String,
        separator: String
    ) {
        if let fields = pinMarks.withheld[name] {
            let exposed = QualifiedName.make(prefix: prefix, separator: separator, name: name)
            withheld.append((exposed, name, fields))
        } else if let fields = pinMarks.flagged[name] {
            // The flag is part of what clients see, so it is part of the item's digest: flagging or unflagging
            // a tool changes the list's fingerprint and clients hear of it.
            var hasher = Hasher()
            hasher.combine(digest)
            hasher.combine(fields)
            let flagged = ToolPinMarks.flagging(tool, changedFields: fields)
            tools.append(
                Self.item(flagged, name: name, digest: hasher.finalize(), prefix: prefix, separator: separator)
            )
        } else {
            tools.append(Self.item(tool, name: name, digest: digest, prefix: prefix, separator: separator))
        }
    }

    private static func item(
        _ object: JSONObject,
        name: String,
        digest: Int,
        prefix: String,
        separator: String
    ) -> Item {
        let exposed = QualifiedName.make(prefix: prefix, separator: separator, name: name)
        var renamed = object
        renamed["name"] = .string(exposed)
        return Item(
            exposed: exposed,
            exposedHash: exposed.hashValue,
            name: name,
            value: .object(renamed),
            digest: digest
        )
    }
}

/// The prepared part of each server, kept while its lists, prefix and tool filter stay the same.
///
/// Bounded by the configured servers: ``keepOnly(_:)`` drops the parts of servers that left. Used only by
/// the writer that rebuilds the aggregate, so its lock is never contended.
final class CatalogContributions: Sendable {
    private struct Entry {
        var toolDigests: [Int]
        var promptDigests: [Int]
        var prefix: String
        var filter: ToolFilter
        var pinMarks: ToolPinMarks
        var contribution: CatalogContribution
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// Server `spec.id`'s part for `catalog`, prepared now or kept from an earlier rebuild.
    func contribution(
        of spec: ServerSpec,
        catalog: ServerCatalog,
        pinMarks: ToolPinMarks = ToolPinMarks(),
        separator: String
    ) -> CatalogContribution {
        let toolDigests = catalog.digests(.tools)
        let promptDigests = catalog.digests(.prompts)
        let kept = entries.withLock { $0[spec.id] }.flatMap { kept in
            kept.prefix == spec.prefix && kept.filter == spec.toolFilter && kept.toolDigests == toolDigests
                && kept.promptDigests == promptDigests ? kept : nil
        }
        if let kept, kept.pinMarks == pinMarks { return kept.contribution }
        let filter = spec.toolFilter
        // Only pinning's marks moved (an approval publishes one tool's): the other tools' items are kept,
        // rather than renaming and copying 5,000 tools for each round of approvals.
        let contribution: CatalogContribution
        if let kept {
            contribution = kept.contribution.remarked(
                catalog: catalog,
                digests: toolDigests,
                from: kept.pinMarks,
                to: pinMarks,
                prefix: spec.prefix,
                separator: separator,
                permitsTool: { filter.permits($0) }
            )
        } else {
            contribution = CatalogContribution(
                catalog: catalog,
                prefix: spec.prefix,
                separator: separator,
                pinMarks: pinMarks,
                permitsTool: { filter.permits($0) }
            )
        }
        let entry = Entry(
            toolDigests: toolDigests,
            promptDigests: promptDigests,
            prefix: spec.prefix,
            filter: filter,
            pinMarks: pinMarks,
            contribution: contribution
        )
        entries.withLock { $0[spec.id] = entry }
        return contribution
    }

    /// Forgets the parts of servers not in `servers`.
    func keepOnly(_ servers: Set<String>) {
        entries.withLock { entries in
            guard entries.keys.contains(where: { !servers.contains($0) }) else { return }
            entries = entries.filter { servers.contains($0.key) }
        }
    }
}
