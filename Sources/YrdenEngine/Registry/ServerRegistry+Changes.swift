import YrdenConfig
import YrdenProtocol

/// What a batch of changes changed, and for whom: whether the aggregate must be merged again, and which lists
/// the clients of the whole gateway, of one server alone and of each profile see differently afterwards.
extension ServerRegistry {
    /// Whether two snapshots merge into the same aggregate: the same servers connected with lists, in the same
    /// order, under the same prefix and tool filter, with the same lists (by digest: arrays kept from one
    /// snapshot to the next share their storage, so an unchanged list compares at once).
    static func sameCatalogSources(_ before: Snapshot, _ after: Snapshot) -> Bool {
        guard before.order == after.order else { return false }
        for id in after.order {
            let old = before.links[id].flatMap(Self.mergedPart)
            let new = after.links[id].flatMap(Self.mergedPart)
            switch (old, new) {
            case (nil, nil):
                continue
            case (let old?, let new?):
                guard old.spec.prefix == new.spec.prefix, old.spec.toolFilter == new.spec.toolFilter,
                    old.pinMarks == new.pinMarks,
                    ServerCatalog.Kind.allCases.allSatisfy({ old.catalog.digests($0) == new.catalog.digests($0) })
                else { return false }
            default:
                return false
            }
        }
        return true
    }

    /// What a server adds to the aggregate: its spec, lists and pin marks while it is connected.
    static func mergedPart(
        _ link: ServerLink
    ) -> (spec: ServerSpec, catalog: ServerCatalog, pinMarks: ToolPinMarks)? {
        guard link.state.isConnected, let catalog = link.catalog else { return nil }
        return (link.spec, catalog, link.pinMarks)
    }

    /// The kinds of lists server `id` offers its own clients (`/servers/{id}/mcp`) differently after a batch:
    /// it connected or left, or a list of its changed.
    static func changedKinds(of id: String, _ before: Snapshot, _ after: Snapshot) -> [ServerCatalog.Kind] {
        let old = before.links[id].flatMap(Self.mergedPart)
        let new = after.links[id].flatMap(Self.mergedPart)
        if old == nil && new == nil { return [] }
        return [ServerCatalog.Kind.tools, .prompts, .resources].filter { kind in
            guard let old, let new else { return true }
            let kinds: [ServerCatalog.Kind] = kind == .resources ? [.resources, .resourceTemplates] : [kind]
            let filterChanged =
                kind == .tools && (old.spec.toolFilter != new.spec.toolFilter || old.pinMarks != new.pinMarks)
            return filterChanged || kinds.contains { old.catalog.digests($0) != new.catalog.digests($0) }
        }
    }

    static func changedKinds(_ before: AggregatedCatalog, _ after: AggregatedCatalog) -> [ServerCatalog.Kind] {
        var kinds: [ServerCatalog.Kind] = []
        if after.listDiffers(.tools, from: before) { kinds.append(.tools) }
        if after.listDiffers(.prompts, from: before) { kinds.append(.prompts) }
        if after.listDiffers(.resources, from: before) || after.listDiffers(.resourceTemplates, from: before) {
            kinds.append(.resources)
        }
        return kinds
    }

    /// Per profile, the kinds of list its clients see differently after a change.
    static func changedKindsByProfile(_ before: Snapshot, _ after: Snapshot) -> [String: [ServerCatalog.Kind]] {
        var changed: [String: [ServerCatalog.Kind]] = [:]
        for (name, view) in after.profiles {
            let old = before.profiles[name]
            guard old !== view else { continue }
            let kinds = view.changedKinds(since: old)
            if !kinds.isEmpty { changed[name] = kinds }
        }
        return changed
    }
}

/// What one batch of changes did, announced after the writer lock is released.
struct AppliedChanges: Sendable {
    var after: ServerRegistry.Snapshot
    var events: [GatewayEvent]
    var changedKinds: [ServerCatalog.Kind]
    /// What changed for the clients of each server alone.
    var changedByServer: [String: [ServerCatalog.Kind]]
    /// What changed for the clients of each profile, after its filters.
    var changedByProfile: [String: [ServerCatalog.Kind]]
    var conflicts: [String]
}
