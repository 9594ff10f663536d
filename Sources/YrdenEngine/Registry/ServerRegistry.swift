import Logging
import Synchronization
import YrdenConfig
import YrdenProtocol

/// Every server's link and the merged catalog built from them: the state routing reads, and its one writer.
///
/// Readers (every request) take an immutable snapshot under a short lock, so routing a call never waits on
/// another call. Writers are the upstream connections and the operator's changes: each queues its change for
/// the one writer pass, which applies it to a server's link, rebuilds the aggregate, tells every session
/// which lists changed and subscribers of the gateway's events the server's new status, in the order it
/// applied them. Nothing outside the registry changes its state but through ``update(_:)`` and
/// ``publish(_:owner:_:)``.
package final class ServerRegistry: Sendable {
    /// The state routing reads: every server's link and the merged catalog built from them.
    package struct Snapshot: Sendable {
        package internal(set) var generation = 0
        /// Server ids in config order, which decides ties between servers.
        package internal(set) var order: [String]
        package internal(set) var links: [String: ServerLink]
        package internal(set) var catalog = AggregatedCatalog.empty
        /// Whether ``catalog`` is behind ``links`` because the merge waits for the startup gate: while servers
        /// make their first attempts nobody reads the aggregate, so 200 servers connecting one by one cost one
        /// merge when the last is done instead of 200 merges of a growing catalog.
        package internal(set) var mergePending = false
        /// The profiles by name, and each one's view of ``catalog``, rebuilt with it.
        package internal(set) var profileSpecs: [String: ProfileSpec] = [:]
        package internal(set) var profiles: [String: ProfileView] = [:]
        /// Profile names in config order.
        package internal(set) var profileOrder: [String] = []

        /// Every server's spec, in config order.
        package var specs: [ServerSpec] { order.compactMap { links[$0]?.spec } }
    }

    private let state: Mutex<Snapshot>
    /// Changes waiting for the writer pass, which runs off the callers' threads: readers take ``state`` just
    /// long enough to copy or swap the snapshot, whatever size the upstreams' catalogs are; see ``update(_:)``.
    private let queue = SnapshotQueue()
    /// Each server's tools and prompts as prepared for the aggregate, kept between rebuilds.
    private let contributions = CatalogContributions()
    private let separator: String
    /// Holds the first `initialize` and lists until every enabled server's first attempt is over.
    let startup: StartupGate
    /// Whether a request past the startup gate's bound has asked the writer for the merge the gate waits for.
    private let startupMergeAsked = Atomic(false)
    /// Every connected server's tools, indexed for profiles in search mode; written by the writer pass alone.
    let searchIndex = ToolSearchCatalog()
    /// Who hears of what a pass applied: the admin API's live view, and the sessions whose lists changed.
    private let events: EventBus
    let sessions: SessionStore
    private let logger: Logger

    init(config: GatewayConfig, startup: StartupGate, events: EventBus, sessions: SessionStore, logger: Logger) {
        var links: [String: ServerLink] = [:]
        for spec in config.servers { links[spec.id] = ServerLink(spec: spec) }
        var snapshot = Snapshot(order: config.servers.map(\.id), links: links)
        snapshot.setProfiles(config.profiles)
        snapshot.rebuildProfiles()
        state = Mutex(snapshot)
        separator = config.gateway.toolSeparator
        self.startup = startup
        self.events = events
        self.sessions = sessions
        self.logger = logger
    }

    package var snapshot: Snapshot { state.withLock { $0 } }

    // MARK: Narrow reads, for the admin API, health and sign-ins: one field under the lock, not a snapshot's copy

    /// Every server's status, in config order.
    package var statuses: [ServerStatus] { snapshot.statuses }

    /// Server `id`'s status; `nil` when there is no such server.
    package func status(of id: String) -> ServerStatus? { snapshot.status(of: id) }

    /// Server `id`'s spec as it runs now; `nil` when there is no such server.
    package func spec(of id: String) -> ServerSpec? { state.withLock { $0.links[id]?.spec } }

    /// Server `id`'s connection state; `nil` when there is no such server.
    package func connectionState(of id: String) -> ConnectionState? { state.withLock { $0.links[id]?.state } }

    /// Server `id`'s own lists as it last listed them; `nil` when there is no such server or it never listed.
    package func serverCatalog(of id: String) -> ServerCatalog? { state.withLock { $0.links[id]?.catalog } }

    /// The merged catalog `/mcp` serves.
    package var catalog: AggregatedCatalog { state.withLock { $0.catalog } }

    /// Profile `name`'s view of the catalog, and its spec; `nil` when there is no such profile.
    package func profileView(_ name: String) -> ProfileView? { state.withLock { $0.profiles[name] } }
    package func profileSpec(_ name: String) -> ProfileSpec? { state.withLock { $0.profileSpecs[name] } }

    /// Whether every enabled server's first attempt is over (`/readyz`).
    package var firstAttemptsFinished: Bool { state.withLock { $0.firstAttemptsFinished } }

    /// A server's own log ring, while it is configured.
    package func logRing(_ server: String) -> LogRing? {
        state.withLock { $0.links[server]?.log }
    }

    /// Every server's log ring, in config order.
    package var logRings: [LogRing] {
        state.withLock { snapshot in snapshot.order.compactMap { snapshot.links[$0]?.log } }
    }

    /// Applies a change to server `server`'s link while connection `owner` owns it (a stopped connection's
    /// late words are dropped), rebuilds the aggregate, and tells every session what changed.
    func publish(_ server: String, owner: UInt64, _ change: @escaping @Sendable (inout ServerLink) -> Void) async {
        await update { snapshot in
            guard var link = snapshot.links[server], link.owner == owner else { return }
            change(&link)
            snapshot.links[server] = link
        }
    }

    /// ``publish(_:owner:_:)`` for a caller that cannot wait: the change is queued in turn and applied soon.
    func publishSoon(_ server: String, owner: UInt64, _ change: @escaping @Sendable (inout ServerLink) -> Void) {
        let queued = QueuedChange { snapshot in
            if var link = snapshot.links[server], link.owner == owner {
                change(&link)
                snapshot.links[server] = link
            }
            return {}
        }
        if queue.offer(queued, evenIfFull: true) == .startPass { startWriterPass() }
    }

    /// Changes the snapshot (any number of servers, their order), then rebuilds the aggregate and notifies
    /// sessions and event subscribers of whatever differs. Returns once the change is applied and announced.
    ///
    /// The change is queued for the one writer pass (``SnapshotQueue``), which runs on the global executor,
    /// never on the caller's thread: a merge of a large catalog must not stall the event loop that an operator's
    /// request or an upstream's report arrived on. The caller suspends meanwhile; no thread waits. The pass
    /// applies every change waiting and rebuilds the aggregate once for all of them, so 200 servers connecting
    /// together cost a few rebuilds, not 200, and it announces each batch before it takes the next, so events,
    /// metrics and sessions hear of changes in the order they were applied. The rebuild runs on a copy; the
    /// readers' lock is held only to take that copy and to swap the result in. Whether a list changed is
    /// decided by fingerprints.
    @discardableResult
    func update<Result: Sendable>(_ change: @escaping @Sendable (inout Snapshot) -> Result) async -> Result {
        let result = ChangeResult<Result>()
        let queued = QueuedChange { snapshot in
            let value = change(&snapshot)
            return { result.deliver(value) }
        }
        while true {
            switch queue.offer(queued) {
            case .queued: return await result.value()
            case .startPass:
                startWriterPass()
                return await result.value()
            case .full: await queue.room()
            }
        }
    }

    private func startWriterPass() {
        // Unstructured: the pass serves every caller that queues meanwhile, not only the one that started it, and
        // runs on the global executor whatever executor that caller prefers (the event loop's, for a request).
        Task.detached { self.writeQueued() }
    }

    /// The writer pass: applies and announces batch after batch until no change is waiting, then hands each
    /// batch's callers their results.
    private func writeQueued() {
        while let batch = queue.take() {
            var finishers: [@Sendable () -> Void] = []
            finishers.reserveCapacity(batch.count)
            announce(apply(batch, finishers: &finishers))
            finishers.forEach { $0() }
        }
    }

    /// Applies `batch` in order and rebuilds the aggregate. Called only by the writer pass.
    private func apply(_ batch: [QueuedChange], finishers: inout [@Sendable () -> Void]) -> AppliedChanges {
        let before = state.withLock { $0 }
        var snapshot = before
        var events: [GatewayEvent] = []
        for change in batch {
            let previous = snapshot
            finishers.append(change.apply(&snapshot))
            // In a batch, each change's own steps are announced (a server connecting, then connected); the
            // counts they carry catch up in the catalog events below.
            if batch.count > 1 { events += GatewayEvent.changes(from: previous, to: snapshot) }
        }
        let applied = snapshot
        // Most changes move a server between states without touching what the aggregate is made of (each of
        // 200 servers starting publishes several states); only a change of its inputs pays for a merge, and
        // none is paid before the startup gate would open.
        if !startupSettled(snapshot) {
            snapshot.mergePending = true
        } else if before.mergePending || !Self.sameCatalogSources(before, snapshot) {
            snapshot.catalog = aggregate(snapshot)
            snapshot.mergePending = false
        }
        if snapshot.catalog !== before.catalog || snapshot.profileSpecs != before.profileSpecs {
            snapshot.rebuildProfiles()
        }
        let changedByProfile = Self.changedKindsByProfile(before, snapshot)
        let changed = Self.changedKinds(before.catalog, snapshot.catalog)
        var changedByServer: [String: [ServerCatalog.Kind]] = [:]
        for id in Set(before.order).union(snapshot.order) {
            let kinds = Self.changedKinds(of: id, before, snapshot)
            if !kinds.isEmpty { changedByServer[id] = kinds }
        }
        if !changed.isEmpty || !changedByServer.isEmpty || !changedByProfile.isEmpty { snapshot.generation += 1 }
        let known = Set(before.catalog.conflicts + before.profiles.values.flatMap(\.conflicts))
        let conflicts =
            snapshot.catalog.conflicts + snapshot.profileOrder.flatMap { snapshot.profiles[$0]?.conflicts ?? [] }
        let newConflicts = conflicts.filter { !known.contains($0) }
        state.withLock { [snapshot] in $0 = snapshot }
        // By the one writer, so the index follows the snapshots in their order.
        searchIndex.update(snapshot, changedServers: changedByServer.filter { $0.value.contains(.tools) }.keys)
        events += GatewayEvent.changes(from: batch.count > 1 ? applied : before, to: snapshot)
        return AppliedChanges(
            after: snapshot,
            events: events,
            changedKinds: changed,
            changedByServer: changedByServer,
            changedByProfile: changedByProfile,
            conflicts: newConflicts
        )
    }

    /// The merged catalog of every connected server, in config order.
    private func aggregate(_ snapshot: Snapshot) -> AggregatedCatalog {
        let sources = snapshot.specs.compactMap { spec -> CatalogSource? in
            guard let link = snapshot.links[spec.id], link.state.isConnected, let catalog = link.catalog else {
                return nil
            }
            let filter = spec.toolFilter
            return CatalogSource(
                server: spec.id,
                prefix: spec.prefix,
                permitsTool: { filter.permits($0) },
                catalog: catalog,
                pinMarks: link.pinMarks,
                contribution: contributions.contribution(
                    of: spec,
                    catalog: catalog,
                    pinMarks: link.pinMarks,
                    separator: separator
                )
            )
        }
        contributions.keepOnly(Set(snapshot.order))
        return AggregatedCatalog(sources: sources, separator: separator)
    }

    /// Tells the log, the startup gate, metrics, event subscribers and every session what a batch changed.
    /// Called only by the writer pass, so every batch is told in the order it was applied (and the state gauge
    /// ends at the state the snapshot holds).
    private func announce(_ applied: AppliedChanges) {
        for conflict in applied.conflicts { logger.warning("catalog conflict: \(conflict)") }
        // The gate opens once its merge is done, so whoever it releases reads the whole catalog.
        if !startup.isOpen, !applied.after.mergePending, startupSettled(applied.after) { startup.open() }
        recordStates(applied.events)
        events.publish(applied.events)
        guard !applied.changedKinds.isEmpty || !applied.changedByServer.isEmpty || !applied.changedByProfile.isEmpty
        else { return }
        for session in sessions.all() {
            let kinds =
                switch session.scope {
                case .gateway: applied.changedKinds
                case .server(let id): applied.changedByServer[id] ?? []
                case .profile(let name): applied.changedByProfile[name] ?? []
                }
            for method in Set(kinds.map(\.listChangedNotification)).sorted() {
                session.deliver(.notification(JSONRPCNotification(method: method)))
            }
        }
    }

    private func recordStates(_ changes: [GatewayEvent]) {
        for change in changes {
            switch change {
            case .serverAdded(let status), .serverState(let status):
                GatewayMetrics.recordState(server: status.id, state: status.state.name)
            case .serverRemoved(let id):
                GatewayMetrics.recordState(server: id, state: nil)
            case .serverCatalog, .toolPin:
                break
            }
        }
    }

}

extension ServerRegistry {
    /// Holds the caller until the first connection attempts are over or past their bound (``StartupBound``);
    /// returns at once afterwards.
    func awaitStartup() async {
        guard !startup.isOpen else { return }
        while !startup.isOpen, !startupSettled(snapshot) {
            await startup.wait(until: startup.nextBound(snapshot))
            if Task.isCancelled { return }  // the waiter was cancelled
        }
        await openStartup()
    }

    /// Whether the aggregate is read yet: the startup gate is open, or would be opened by this snapshot (every
    /// first attempt over or past its bound) or by its deadline.
    func startupSettled(_ snapshot: Snapshot) -> Bool {
        startup.isOpen || startup.settles(snapshot) || startup.deadlinePassed
    }

    /// Opens the startup gate once the merge it held back is done, so whoever finds the gate open reads the
    /// whole catalog. The merge is the writer's (off the event loop): the first request past the bound asks
    /// for it, and it and every other request wait, suspended, for the writer to open the gate after it.
    func openStartup() async {
        guard !startup.isOpen else { return }
        if startupMergeAsked.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
            await update { _ in }
            startup.open()
        } else {
            await startup.waitUntilOpen()
        }
    }
}
