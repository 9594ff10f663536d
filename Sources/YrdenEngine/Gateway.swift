import Logging
import Synchronization
import YrdenAudit
import YrdenConfig
import YrdenProtocol
import YrdenTelemetry
import YrdenTransport

/// Many upstreams as one MCP server: the engine's front door, and the composition of its owners.
///
/// The transports call it (``receive(_:rawID:session:)``, the requests and the stateless entries) and operators
/// change servers through it; what it does is each owner's: the server registry (every server's link, the
/// merged catalog and profile views, the one writer pass: ``registry``), what a client sees in its scope
/// (``views``), what a session's request does (``dispatcher``), the era bridge (``bridge``) and tool pinning
/// (``pinning``), the servers' lifecycle (``lifecycle``: operators' commands and connections). It holds no
/// state of its own.
package final class Gateway: Sendable {
    package let settings: GatewaySettings
    package let connector: UpstreamConnector
    package let sessions: SessionStore
    /// State changes, catalog changes and servers coming and going, for the admin API's live view.
    package let events = EventBus()
    /// The gateway's own entries (servers added, removed, reconfigured); each server has its own ring.
    package let log = LogRing(server: nil)
    let logger: Logger
    /// Every server's link, the merged catalog and the profiles' views of it, and the one writer of them.
    package let registry: ServerRegistry
    /// What a client sees of the catalog in its scope: routes, list pages, capabilities, instructions.
    let views: CatalogViews
    /// Where the eras meet: stateless requests' envelopes, and calls parked behind `input_required`.
    let bridge: EraBridge
    /// What a session's request does, and what upstreams send that sessions must hear.
    let dispatcher: Dispatcher
    /// Every tool definition seen, and what to do when one changes (`security.toolPinning`).
    package let pinning: ToolPinning
    /// The operators' commands (add, remove, reconcile, restart, ...) and every server's connection.
    package let lifecycle: ServerLifecycle
    /// The `limits` calls are checked against (changed by a reload, ``RateLimiter/update(_:)``).
    package let limiter: RateLimiter
    /// Where forwarded requests and operators' changes are recorded (`audit`); `nil`: nowhere.
    let audit: AuditTrail?
    /// Where spans go when tracing is configured; `nil`: off, and every instrumentation point is one branch.
    package let tracer: Tracer?

    /// What routing reads: the registry's snapshot.
    package typealias Snapshot = ServerRegistry.Snapshot

    /// `toolPins` holds the pins saved by an earlier run; by default pins are kept in memory only.
    /// `requestStateKey` seals the `requestState` of parked calls (replicas share one, so each can read
    /// another's); by default one is made for this process. `replica` is how the other replicas reach this one,
    /// where they hand a retry of a call parked here. `startup` says how long the first requests wait for the
    /// servers' first attempts. `audit` is the trail forwarded requests and operators' changes are recorded in;
    /// `tracer` where spans go (none: tracing is off).
    package init(
        config: GatewayConfig,
        logger: Logger,
        connector: UpstreamConnector = UpstreamConnector(),
        toolPins: ToolPins? = nil,
        requestStateKey: [UInt8]? = nil,
        replica: String? = nil,
        startup bound: StartupBound = .startupWait,
        audit: AuditTrail? = nil,
        tracer: Tracer? = nil
    ) {
        self.tracer = tracer
        self.settings = config.gateway
        self.sessions = SessionStore(
            limit: config.gateway.maxSessions,
            perClientLimit: config.gateway.maxSessionsPerClient,
            idleTimeout: config.gateway.sessionIdleTimeout,
            time: connector.time
        )
        self.connector = connector
        self.bridge = EraBridge(
            time: connector.time,
            requestStateKey: requestStateKey,
            replica: replica,
            tracer: tracer
        )
        self.logger = logger
        let startup = StartupGate(
            bound,
            time: connector.time,
            startedAt: connector.time.now,
            startupWait: config.gateway.startupWait,
            servers: config.servers
        )
        registry = ServerRegistry(
            config: config,
            startup: startup,
            events: events,
            sessions: sessions,
            logger: logger
        )
        views = CatalogViews(registry: registry, separator: config.gateway.toolSeparator)
        limiter = RateLimiter(config.limits)
        self.audit = audit
        dispatcher = Dispatcher(
            registry: registry,
            views: views,
            bridge: bridge,
            sessions: sessions,
            connector: connector,
            limiter: limiter,
            audit: audit,
            tracer: tracer,
            logger: logger
        )
        dispatcher.followUserSignIns()
        pinning = ToolPinning(
            pins: toolPins ?? ToolPins(mode: config.security.toolPinning),
            registry: registry,
            events: events,
            log: log,
            logger: logger,
            time: connector.time
        )
        lifecycle = ServerLifecycle(
            owners: ConnectionOwners(
                registry: registry,
                dispatcher: dispatcher,
                pinning: pinning,
                events: events,
                connector: connector
            ),
            log: log,
            logger: logger
        )
    }

    package var snapshot: Snapshot { registry.snapshot }

    /// The configuration as it stands now, including changes made while running.
    package var config: GatewayConfig {
        let snapshot = self.snapshot
        return GatewayConfig(
            gateway: settings,
            security: SecuritySettings(toolPinning: pinning.mode),
            servers: snapshot.specs,
            profiles: snapshot.profileSpecList
        )
    }

    /// Keeps every enabled upstream connected until the task is cancelled, then stops them all and ends the
    /// sessions. Returns only when every child process has been shut down.
    ///
    /// Every connection runs in this one task group: the ones of the config now, and those the operator's
    /// changes add later (handed over by the ``lifecycle``). Cancelling the run cancels them all, and each
    /// closes what it opened before the group, and so the run, returns.
    package func run() async {
        await lifecycle.startConnections(snapshot.specs.filter { !$0.disabled })
        await withDiscardingTaskGroup { group in
            group.addTask { await self.expireIdleSessions() }
            group.addTask { await self.pinning.runSaver() }
            await lifecycle.runConnections(in: &group)
        }
        pinning.saveAtEnd()
        sessions.endAll()
        bridge.cancelAll()
        events.finishAll()
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
}
