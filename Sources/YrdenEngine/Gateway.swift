import Logging
import Synchronization
import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// Many upstreams as one MCP server: the engine's front door.
///
/// Readers (every request) take an immutable snapshot under a short lock, so routing a call never waits on
/// another call. Writers are the upstream connections and the operator's changes: each queues its change for
/// the one writer pass, which applies it to a server's link, rebuilds the aggregate, tells every session
/// which lists changed and subscribers of ``events`` the server's new status, in the order it applied them.
package final class Gateway: Sendable {
    package let settings: GatewaySettings
    package let connector: UpstreamConnector
    package let sessions: SessionStore
    /// State changes, catalog changes and servers coming and going, for the admin API's live view.
    package let events = EventBus()
    /// The gateway's own entries (servers added, removed, reconfigured); each server has its own ring.
    package let log = LogRing(server: nil)
    let logger: Logger
    /// Every server's connection; started into ``run()``'s task group.
    let connections = UpstreamConnections()
    private let state: Mutex<Snapshot>
    /// Changes waiting for the writer pass, which runs off the callers' threads: readers take ``state`` just
    /// long enough to copy or swap the snapshot, whatever size the upstreams' catalogs are; see ``update(_:)``.
    private let queue = SnapshotQueue()
    /// Each server's tools and prompts as prepared for the aggregate, kept between rebuilds.
    private let contributions = CatalogContributions()
    /// The merged lists' pages as clients receive them, serialized once per catalog generation.
    let listPages = ListPageCache()
    /// Where the eras meet: stateless requests' envelopes, and calls parked behind `input_required`.
    let bridge: EraBridge
    /// Which clients follow which upstream resources.
    let resourceSubscriptions = ResourceSubscriptions()
    /// Every connected server's tools, indexed for profiles in search mode.
    let searchIndex = ToolSearchCatalog()
    /// Whether a request past the startup gate's bound has asked the writer for the merge the gate waits for.
    let startupMergeAsked = Atomic(false)
    let startedAt: ContinuousClock.Instant
    /// Holds the first `initialize` and lists until every enabled server's first attempt is over.
    let startup: StartupGate
    /// Every tool definition seen, and what to do when one changes (`security.toolPinning`).
    package let toolPins: ToolPins

    /// The state routing reads: every server's link and the merged catalog built from them.
    package struct Snapshot: Sendable {
        package var generation = 0
        /// Server ids in config order, which decides ties between servers.
        package var order: [String]
        package var links: [String: ServerLink]
        package var catalog = AggregatedCatalog.empty
        /// Whether ``catalog`` is behind ``links`` because the merge waits for the startup gate: while servers
        /// make their first attempts nobody reads the aggregate, so 200 servers connecting one by one cost one
        /// merge when the last is done instead of 200 merges of a growing catalog.
        package var mergePending = false
        /// The profiles by name, and each one's view of ``catalog``, rebuilt with it.
        package var profileSpecs: [String: ProfileSpec] = [:]
        package var profiles: [String: ProfileView] = [:]
        /// Profile names in config order.
        package var profileOrder: [String] = []

        /// Every server's spec, in config order.
        package var specs: [ServerSpec] { order.compactMap { links[$0]?.spec } }
    }

    /// `toolPins` holds the pins saved by an earlier run; by default pins are kept in memory only. `startup`
    /// says how long the first requests wait for the servers' first attempts.
    package init(
        config: GatewayConfig,
        logger: Logger,
        connector: UpstreamConnector = UpstreamConnector(),
        toolPins: ToolPins? = nil,
        startup bound: StartupBound = .startupWait
    ) {
        self.settings = config.gateway
        self.sessions = SessionStore(
            limit: config.gateway.maxSessions,
            perClientLimit: config.gateway.maxSessionsPerClient,
            idleTimeout: config.gateway.sessionIdleTimeout,
            time: connector.time
        )
        self.connector = connector
        startedAt = connector.time.now
        self.bridge = EraBridge(time: connector.time)
        self.logger = logger
        self.startup = StartupGate(
            bound,
            time: connector.time,
            startedAt: startedAt,
            startupWait: config.gateway.startupWait,
            servers: config.servers
        )
        var links: [String: ServerLink] = [:]
        for spec in config.servers { links[spec.id] = ServerLink(spec: spec) }
        var snapshot = Snapshot(order: config.servers.map(\.id), links: links)
        snapshot.setProfiles(config.profiles)
        snapshot.rebuildProfiles()
        state = Mutex(snapshot)
        self.toolPins = toolPins ?? ToolPins(mode: config.security.toolPinning)
        // Servers removed from the config while the gateway was down take their pins with them.
        if self.toolPins.keepOnly(Set(config.servers.map(\.id))) { self.toolPins.requestSave() }
    }

    package var snapshot: Snapshot { state.withLock { $0 } }

    /// The configuration as it stands now, including changes made while running.
    package var config: GatewayConfig {
        let snapshot = self.snapshot
        return GatewayConfig(
            gateway: settings,
            security: SecuritySettings(toolPinning: toolPins.mode),
            servers: snapshot.specs,
            profiles: snapshot.profileSpecList
        )
    }

    /// Keeps every enabled upstream connected until the task is cancelled, then stops them all and ends the
    /// sessions. Returns only when every child process has been shut down.
    ///
    /// Every connection runs in this one task group: the ones of the config now, and those the operator's
    /// changes add later (handed over by ``connections``). Cancelling the run cancels them all, and each
    /// closes what it opened before the group, and so the run, returns.
    package func run() async {
        await startConnections(snapshot.specs.filter { !$0.disabled })
        await withDiscardingTaskGroup { group in
            group.addTask { await self.expireIdleSessions() }
            group.addTask { await self.runPinSaver() }
            while let connection = await connections.next() {
                group.addTask {
                    await connection.run()
                    self.connections.ended(connection)
                }
            }
            connections.close()
        }
        savePinsAtEnd()
        sessions.endAll()
        bridge.cancelAll()
        events.finishAll()
    }

    /// Logged, and kept in the gateway's own ring (`GET /api/v1/logs`), where an operator looks.
    func pinsNotSaved(_ error: any Error) {
        logger.error(
            "could not save the tool pins",
            metadata: ["to": "\(toolPins.store.location)", "reason": "\(error)"]
        )
        log.append(
            "could not save the tool pins to \(toolPins.store.location): \(error)",
            level: .error,
            event: "pinning"
        )
    }

    /// Ends sessions at their idle deadline (waking then, not on a fixed poll), until cancelled. On the
    /// gateway's clock like every wait of the engine (a test on `TestClock` tells its own timers from this one
    /// by their deadlines).
    private func expireIdleSessions() async {
        while !Task.isCancelled {
            let (ended, next) = sessions.expireIdle()
            if ended > 0 { FreedMemory.release() }
            try? await connector.time.sleep(until: next)
        }
    }

    /// Makes a new connection own `spec`'s link and hands it to the run; it opens nothing before the
    /// server's previous connection, if one is still stopping, has finished.
    func startConnection(_ spec: ServerSpec) async {
        await startConnections([spec])
    }

    /// ``startConnection(_:)`` for many servers, their links claimed in one change (200 servers at startup
    /// rebuild the aggregate once, not 200 times).
    func startConnections(_ specs: [ServerSpec]) async {
        let owners = specs.map { _ in connections.newOwner() }
        let owned = await update { snapshot -> [Bool] in
            zip(specs, owners).map { spec, owner in
                guard snapshot.links[spec.id]?.spec == spec else { return false }
                snapshot.links[spec.id]?.owner = owner
                return true
            }
        }
        for ((spec, owner), isOwned) in zip(zip(specs, owners), owned) where isOwned {
            var logger = self.logger
            logger[metadataKey: "yrden.upstream"] = "\(spec.id)"
            connections.add(
                UpstreamConnection(
                    spec: spec,
                    gateway: self,
                    logger: logger,
                    owner: owner,
                    previous: connections.stillStopping(spec.id)
                )
            )
        }
    }

    func logRing(_ server: String) -> LogRing? {
        state.withLock { $0.links[server]?.log }
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
                    separator: settings.toolSeparator
                )
            )
        }
        contributions.keepOnly(Set(snapshot.order))
        return AggregatedCatalog(sources: sources, separator: settings.toolSeparator)
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
