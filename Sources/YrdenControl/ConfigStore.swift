import Logging
import YrdenConfig
import YrdenEngine
import YrdenProtocol
import YrdenStorage

/// The config as operators edit it at runtime: validated like the file, applied to the gateway, and written
/// back so a restart keeps every change.
///
/// Every change goes validate → write → apply: a change the validator refuses touches nothing, and a change that
/// cannot be written is not applied, so what runs never differs from what a restart would load. The file is
/// written from the raw document, so `${VAR}` references stay references and secrets stay out of it.
///
/// Changes are linearizable: each one passes a ``ChangeGate`` and holds it from its first check to its applied
/// state, so a change never sees another half done (an actor alone would interleave them at every `await`).
/// Each version of the document has an ETag, and so has each server's entry, for clients that read, modify and
/// write (`If-Match`). A change that waits for servers to stop waits at most ``stopLimit``. The file watcher's
/// reloads take the same turns, and a change first applies an edit of the file not yet reloaded, so neither
/// ever overwrites the other.
package actor ConfigStore {
    /// Where changes are written; `nil` keeps them in memory only (a gateway started without a writable file).
    package nonisolated let path: String?
    private(set) var document: ConfigDocument
    let environment: [String: String]
    let gateway: Gateway
    let logger: Logger
    private let stopLimit: Duration
    let gate = ChangeGate()
    private(set) var versions: ConfigVersions
    /// The file's bytes as this store last wrote or read them: a file that differs was edited by someone else
    /// and is applied before the next change, so an API write never overwrites an edit not yet reloaded.
    var fileBytes: [UInt8]?
    /// The store replicas share the config through, instead of a file; `nil` for a gateway of its own.
    let shared: SharedConfig?
    /// The store version this replica runs (``ConfigVersions/revision`` as the store numbers it).
    var sharedVersion: Int64 = 0

    package init(
        document: ConfigDocument,
        path: String?,
        environment: [String: String],
        gateway: Gateway,
        logger: Logger,
        stopLimit: Duration = ServerLifecycle.stopLimit
    ) {
        self.document = document
        self.path = path
        self.environment = environment
        self.gateway = gateway
        self.logger = logger
        self.stopLimit = stopLimit
        self.versions = ConfigVersions()
        self.shared = nil
        if let path {
            Self.removeLeftovers(of: path, logger: logger)
            fileBytes = try? AtomicFile.read(path)
        }
    }

    /// The document as a restart would load it (references unexpanded): what the bundle sweep searches.
    package func serializedDocument() -> [UInt8] { document.serialized() }

    /// A store whose config is shared with other replicas through `shared`, starting at `snapshot` (what
    /// ``SharedConfig/loadOrSeed()`` returned); there is no file to write.
    package init(
        shared: SharedConfig,
        snapshot: SharedConfig.Snapshot,
        environment: [String: String],
        gateway: Gateway,
        logger: Logger,
        stopLimit: Duration = ServerLifecycle.stopLimit
    ) {
        self.document = snapshot.document
        self.path = nil
        self.environment = environment
        self.gateway = gateway
        self.logger = logger
        self.stopLimit = stopLimit
        self.versions = snapshot.versions
        self.shared = shared
        self.sharedVersion = snapshot.version
    }

    /// The whole document with secrets redacted, and its ETag.
    package func redactedDocument() -> (document: JSONValue, etag: String) {
        (document.redacted().json, versions.documentTag)
    }

    /// Server `id`'s entry as written, secrets redacted; `nil` for an unknown id.
    package func redactedEntry(_ id: String) -> JSONValue? {
        document.entry(id).map(ConfigDocument.redactedEntry)
    }

    /// The ETag of server `id`'s entry (it changes when the entry does); `nil` for an unknown id.
    package func entryTag(_ id: String) -> String? {
        document.entry(id) == nil ? nil : versions.entryTag(id)
    }

    package func addServer(id: String, entry: JSONValue) async throws(ConfigStoreError) {
        try await enter()
        defer { gate.leave() }
        try await catchUp()
        guard document.entry(id) == nil else { throw .duplicateServer(id) }
        let spec = try validate(entry, id: id)
        var next = document
        next.setEntry(entry, for: id)
        try await commit(next)
        do { try await gateway.lifecycle.addServer(spec) } catch { throw ConfigStoreError(error) }
    }

    /// Replaces `id`'s entry; redacted values sent back keep what is stored. True when the server restarted.
    @discardableResult
    package func replaceServer(
        id: String,
        entry: JSONValue,
        expecting expected: ExpectedVersion = .any
    ) async throws(ConfigStoreError) -> Bool {
        try await enter()
        defer { gate.leave() }
        try await catchUp()
        return try await replacingServer(id: id, expecting: expected) { _ in entry }
    }

    /// Applies an RFC 7396 merge patch to `id`'s entry.
    @discardableResult
    package func patchServer(
        id: String,
        patch: JSONValue,
        expecting expected: ExpectedVersion = .any
    ) async throws(ConfigStoreError) -> Bool {
        try await enter()
        defer { gate.leave() }
        try await catchUp()
        return try await replacingServer(id: id, expecting: expected) { $0.mergePatched(with: patch) }
    }

    package func removeServer(id: String, expecting expected: ExpectedVersion = .any) async throws(ConfigStoreError) {
        try await enter()
        defer { gate.leave() }
        try await catchUp()
        var next = document
        guard next.entry(id) != nil else { throw .unknownServer(id) }
        try check(expected, against: versions.entryTag(id))
        let naming = document.profilesNaming(server: id)
        guard naming.isEmpty else {
            throw .conflict(
                "profile\(naming.count == 1 ? "" : "s") \(naming.joined(separator: ", ")) name\(naming.count == 1 ? "s" : "") "
                    + "server \(id) in \"servers\"; take it out of the profile first"
            )
        }
        _ = next.removeEntry(id)
        try await commit(next)
        let stopped: Bool
        do { stopped = try await gateway.lifecycle.removeServer(id, stopLimit: stopLimit) } catch {
            throw ConfigStoreError(error)
        }
        if !stopped { throw .stillStopping(LateStop(servers: [id], limit: stopLimit, restarting: false)) }
    }

    /// Starts connecting server `id` (see ``Gateway/connectServer(_:)``), in turn with every other change.
    package func connectServer(id: String) async throws(ConfigStoreError) {
        try await enter()
        defer { gate.leave() }
        try await catchUpUnlessStoreIsDown()
        do { try await gateway.lifecycle.connectServer(id) } catch { throw ConfigStoreError(error) }
    }

    /// Stops server `id` until it is connected again, waiting at most ``stopLimit``.
    package func disconnectServer(id: String) async throws(ConfigStoreError) {
        try await enter()
        defer { gate.leave() }
        try await catchUpUnlessStoreIsDown()
        let stopped: Bool
        do { stopped = try await gateway.lifecycle.disconnectServer(id, stopLimit: stopLimit) } catch {
            throw ConfigStoreError(error)
        }
        if !stopped { throw .stillStopping(LateStop(servers: [id], limit: stopLimit, restarting: false)) }
    }

    /// Stops and starts server `id`, waiting at most ``stopLimit`` for the stop.
    package func restartServer(id: String) async throws(ConfigStoreError) {
        try await enter()
        defer { gate.leave() }
        try await catchUpUnlessStoreIsDown()
        let stopped: Bool
        do { stopped = try await gateway.lifecycle.restartServer(id, stopLimit: stopLimit) } catch {
            throw ConfigStoreError(error)
        }
        if !stopped { throw .stillStopping(LateStop(servers: [id], limit: stopLimit, restarting: true)) }
    }

    /// The body of a replace or patch, run inside the gate: `change` makes the new entry from the stored one.
    private func replacingServer(
        id: String,
        expecting expected: ExpectedVersion,
        _ change: (JSONValue) -> JSONValue
    ) async throws(ConfigStoreError) -> Bool {
        guard let old = document.entry(id) else { throw .unknownServer(id) }
        let entry = ConfigDocument.restoringRedacted(change(old), from: old)
        let spec = try validate(entry, id: id)
        try check(expected, against: versions.entryTag(id))
        var next = document
        next.setEntry(entry, for: id)
        try await commit(next)
        let outcome: (restarted: Bool, stoppedInTime: Bool)
        do { outcome = try await gateway.lifecycle.replaceServer(spec, stopLimit: stopLimit) } catch {
            throw ConfigStoreError(error)
        }
        if !outcome.stoppedInTime {
            throw .stillStopping(LateStop(servers: [id], limit: stopLimit, restarting: !spec.disabled))
        }
        return outcome.restarted
    }

    /// Replaces the whole document and reconciles: only servers whose entry changed restart. A change to the
    /// gateway section is refused, since it takes a restart to apply (the listener, the token); the
    /// `security` section applies at once.
    package func replaceDocument(
        _ value: JSONValue,
        expecting expected: ExpectedVersion = .any
    ) async throws(ConfigStoreError) -> ReconcileChanges {
        try await enter()
        defer { gate.leave() }
        try await catchUp()
        guard case .object(let root) = value else {
            throw .invalid(
                ConfigError(
                    source: "admin API",
                    problems: [
                        ConfigProblem(
                            path: "",
                            message: "the config must be a JSON object",
                            fix: #"send {"mcpServers": {}}"#
                        )
                    ]
                )
            )
        }
        let next = ConfigDocument(document.restoringRedacted(in: root))
        let config: GatewayConfig
        do { config = try next.decoded(environment: environment, source: "admin API") } catch { throw .invalid(error) }
        if let field = Self.changedGatewayField(gateway.settings, config.gateway) {
            throw .conflict("gateway.\(field) cannot change while the gateway runs; edit the file and restart it")
        }
        if config.audit.file != gateway.auditFile {
            throw .conflict("audit.file cannot change while the gateway runs; edit the file and restart it")
        }
        try check(expected, against: versions.documentTag)
        try await commit(next)
        await gateway.registry.setProfiles(config.profiles)
        await gateway.pinning.setMode(config.security.toolPinning)
        gateway.limiter.update(config.limits)
        return try await reconcile(to: config.servers)
    }

    /// Applies what changed elsewhere before a change: another replica's write (with a store), or an edit of
    /// the file this store did not make.
    func catchUp() async throws(ConfigStoreError) {
        if shared != nil { return try await catchUpWithStore() }
        try await catchUpWithFile()
    }

    /// ``catchUp()`` for an action that writes nothing (connect, disconnect, restart): a store that cannot be
    /// reached does not stop it, it runs on the config this replica holds.
    func catchUpUnlessStoreIsDown() async throws(ConfigStoreError) {
        do { try await catchUp() } catch .storeUnavailable(let reason) {
            logger.warning("acting on the config this replica holds", metadata: ["store": "\(reason)"])
        }
    }

    /// Validates `next`, adopts it (at `versions`, or with new versions for what differs), and reconciles the
    /// running servers with it.
    func apply(
        _ next: ConfigDocument,
        source: String,
        versions: ConfigVersions?
    ) async throws(ConfigStoreError) -> ReconcileChanges {
        let config: GatewayConfig
        do { config = try next.decoded(environment: environment, source: source) } catch { throw .invalid(error) }
        if let field = Self.changedGatewayField(gateway.settings, config.gateway) {
            logger.warning("gateway.\(field) changed in \(source); it takes effect after a restart")
        }
        if config.audit.file != gateway.auditFile {
            logger.warning("audit.file changed in \(source); it takes effect after a restart")
        }
        if let versions { adopt(next, versions: versions) } else { adopt(next) }
        await gateway.registry.setProfiles(config.profiles)
        await gateway.pinning.setMode(config.security.toolPinning)
        gateway.limiter.update(config.limits)
        return try await reconcile(to: config.servers)
    }

    /// Makes the running servers match `servers`; servers that outlast the stop limit are reported after the
    /// change is applied.
    private func reconcile(to servers: [ServerSpec]) async throws(ConfigStoreError) -> ReconcileChanges {
        let changes = await gateway.lifecycle.reconcile(to: servers, stopLimit: stopLimit)
        guard changes.stillStopping.isEmpty else {
            let restarting = Set(changes.stillStopping).isSubset(of: changes.restarted)
            throw .stillStopping(LateStop(servers: changes.stillStopping, limit: stopLimit, restarting: restarting))
        }
        return changes
    }

    /// Waits for this change's turn; every path through the store that changes anything starts here.
    func enter() async throws(ConfigStoreError) {
        do { try await gate.enter() } catch {
            switch error {
            case .queueFull(let waiting):
                throw .busy("\(waiting) config changes are already waiting; retry shortly")
            case .waitedTooLong(let limit):
                throw .busy("other config changes held it for \(limit.components.seconds) s; retry shortly")
            }
        }
    }

    /// Refuses the change when the client expected another version than `current`. Checked after the request
    /// itself was found valid, as RFC 9110 orders it: a request that is wrong anyway says so, not 412.
    func check(_ expected: ExpectedVersion, against current: String) throws(ConfigStoreError) {
        guard expected.accepts(current) else { throw .versionMismatch(current: current) }
    }

    private func validate(_ entry: JSONValue, id: String) throws(ConfigStoreError) -> ServerSpec {
        if let path = Self.leftoverRedaction(in: entry) {
            let problem = ConfigProblem(
                path: "mcpServers.\(id).\(path)",
                message: "holds the redaction mark \(ConfigDocument.redactionMark), and no value is stored to keep",
                fix: "send the real value, or a ${VAR} reference to an environment variable"
            )
            throw .invalid(ConfigError(source: "admin API", problems: [problem]))
        }
        do { return try document.validatingEntry(entry, id: id, environment: environment) } catch {
            throw .invalid(error)
        }
    }

    /// Writes `next` (atomically: the file is the old version or the new one, never a mix; with a store, by
    /// compare-and-set against the version this replica runs) and adopts it.
    func commit(_ next: ConfigDocument) async throws(ConfigStoreError) {
        if shared != nil { return try await commitToStore(next) }
        try writeFile(next)
        adopt(next)
    }

    /// Makes `next` the current document, with new versions for what differs.
    func adopt(_ next: ConfigDocument) {
        var advanced = versions
        advanced.advance(from: document, to: next)
        adopt(next, versions: advanced)
    }

    /// Makes `next` the current document, at `versions`.
    func adopt(_ next: ConfigDocument, versions: ConfigVersions) {
        self.versions = versions
        document = next
        gateway.connector.withheldEnvironment.adopt(next)
    }
}
