import Logging
import Synchronization
import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// Many upstreams as one MCP server: the engine's front door.
///
/// Readers (every request) take an immutable snapshot under a short lock, so routing a call never waits on
/// another call. Writers are the upstream supervisors: each publishes its own server's changes, the aggregate
/// is rebuilt, and every session is told which lists changed.
package final class Gateway: Sendable {
    package let config: GatewayConfig
    package let connector: UpstreamConnector
    package let sessions = SessionStore()
    let logger: Logger
    private let state: Mutex<Snapshot>
    let startedAt = ContinuousClock.now

    /// The state routing reads: every server's link and the merged catalog built from them.
    package struct Snapshot: Sendable {
        package var generation = 0
        package var links: [String: ServerLink]
        package var catalog = AggregatedCatalog.empty
    }

    package init(config: GatewayConfig, logger: Logger, connector: UpstreamConnector = UpstreamConnector()) {
        self.config = config
        self.connector = connector
        self.logger = logger
        var links: [String: ServerLink] = [:]
        for spec in config.servers { links[spec.id] = ServerLink(spec: spec) }
        state = Mutex(Snapshot(links: links))
    }

    package var snapshot: Snapshot { state.withLock { $0 } }

    /// Keeps every enabled upstream connected until the task is cancelled, then stops them all and ends the
    /// sessions. Returns only when every child process has been shut down.
    package func run() async {
        await withDiscardingTaskGroup { group in
            for spec in config.servers where !spec.disabled {
                var logger = self.logger
                logger[metadataKey: "yrden.upstream"] = "\(spec.id)"
                let supervisor = UpstreamSupervisor(spec: spec, gateway: self, logger: logger)
                group.addTask { await supervisor.run() }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(60))
                    self.sessions.expireIdle()
                }
            }
        }
        sessions.endAll()
    }

    func logRing(_ server: String) -> LogRing? {
        state.withLock { $0.links[server]?.log }
    }

    /// Applies one server's change, rebuilds the aggregate, and tells every session what changed.
    func publish(_ server: String, _ change: (inout ServerLink) -> Void) {
        let (changedKinds, conflicts) = state.withLock { snapshot -> ([ServerCatalog.Kind], [String]) in
            guard var link = snapshot.links[server] else { return ([], []) }
            let before = snapshot.catalog
            change(&link)
            snapshot.links[server] = link
            let sources = config.servers.compactMap { spec -> CatalogSource? in
                guard let link = snapshot.links[spec.id], link.state.isConnected, let catalog = link.catalog else {
                    return nil
                }
                let filter = spec.toolFilter
                return CatalogSource(
                    server: spec.id,
                    prefix: spec.prefix,
                    permitsTool: { filter.permits($0) },
                    catalog: catalog
                )
            }
            let after = AggregatedCatalog(sources: sources, separator: config.gateway.toolSeparator)
            snapshot.catalog = after
            let changed = Self.changedKinds(before, after)
            if !changed.isEmpty { snapshot.generation += 1 }
            let newConflicts = after.conflicts.filter { !before.conflicts.contains($0) }
            return (changed, newConflicts)
        }
        for conflict in conflicts { logger.warning("catalog conflict: \(conflict)") }
        guard !changedKinds.isEmpty else { return }
        let notifications = Set(changedKinds.map(\.listChangedNotification)).sorted().map {
            JSONRPCMessage.notification(JSONRPCNotification(method: $0))
        }
        for session in sessions.all() {
            notifications.forEach { session.deliver($0) }
        }
    }

    private static func changedKinds(_ before: AggregatedCatalog, _ after: AggregatedCatalog) -> [ServerCatalog.Kind] {
        var kinds: [ServerCatalog.Kind] = []
        if before.tools != after.tools { kinds.append(.tools) }
        if before.prompts != after.prompts { kinds.append(.prompts) }
        if before.resources != after.resources || before.resourceTemplates != after.resourceTemplates {
            kinds.append(.resources)
        }
        return kinds
    }
}
