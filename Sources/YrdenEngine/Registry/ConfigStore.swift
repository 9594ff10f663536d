import Logging
import YrdenConfig
import YrdenProtocol
import YrdenStorage

/// The config as operators edit it at runtime: validated like the file, applied to the gateway, and written
/// back so a restart keeps every change.
///
/// An actor, so concurrent edits apply one at a time and the file always holds the last one whole. Every
/// change goes validate → write → apply: a change the validator refuses touches nothing, and a change that
/// cannot be written is not applied, so what runs never differs from what a restart would load. The file is
/// written from the raw document, so `${VAR}` references stay references and secrets stay out of it.
package actor ConfigStore {
    /// Where changes are written; `nil` keeps them in memory only (a gateway started without a writable file).
    package nonisolated let path: String?
    private var document: ConfigDocument
    private let environment: [String: String]
    private let gateway: Gateway
    private let logger: Logger

    package init(
        document: ConfigDocument,
        path: String?,
        environment: [String: String],
        gateway: Gateway,
        logger: Logger
    ) {
        self.document = document
        self.path = path
        self.environment = environment
        self.gateway = gateway
        self.logger = logger
    }

    /// The whole document with secrets redacted.
    package func redactedDocument() -> JSONValue { document.redacted().json }

    /// Server `id`'s entry as written, secrets redacted; `nil` for an unknown id.
    package func redactedEntry(_ id: String) -> JSONValue? {
        document.entry(id).map(ConfigDocument.redactedEntry)
    }

    package func addServer(id: String, entry: JSONValue) async throws(ConfigStoreError) {
        guard document.entry(id) == nil else { throw .duplicateServer(id) }
        let spec = try validate(entry, id: id)
        var next = document
        next.setEntry(entry, for: id)
        try commit(next)
        do { try gateway.addServer(spec) } catch { throw ConfigStoreError(error) }
    }

    /// Replaces `id`'s entry; redacted values sent back keep what is stored. True when the server restarted.
    @discardableResult
    package func replaceServer(id: String, entry: JSONValue) async throws(ConfigStoreError) -> Bool {
        guard let old = document.entry(id) else { throw .unknownServer(id) }
        let entry = ConfigDocument.restoringRedacted(entry, from: old)
        let spec = try validate(entry, id: id)
        var next = document
        next.setEntry(entry, for: id)
        try commit(next)
        do { return try await gateway.replaceServer(spec) } catch { throw ConfigStoreError(error) }
    }

    /// Applies an RFC 7396 merge patch to `id`'s entry.
    @discardableResult
    package func patchServer(id: String, patch: JSONValue) async throws(ConfigStoreError) -> Bool {
        guard let old = document.entry(id) else { throw .unknownServer(id) }
        return try await replaceServer(id: id, entry: old.mergePatched(with: patch))
    }

    package func removeServer(id: String) async throws(ConfigStoreError) {
        var next = document
        guard next.removeEntry(id) else { throw .unknownServer(id) }
        try commit(next)
        do { try await gateway.removeServer(id) } catch { throw ConfigStoreError(error) }
    }

    /// Replaces the whole document and reconciles: only servers whose entry changed restart. A change to the
    /// gateway section is refused, since it takes a restart to apply (the listener, the token).
    package func replaceDocument(_ value: JSONValue) async throws(ConfigStoreError) -> ReconcileChanges {
        guard case .object(var root) = value else {
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
        if let servers = root["mcpServers"]?.objectValue {
            var restored = JSONObject()
            for (id, entry) in servers {
                restored[id] = ConfigDocument.restoringRedacted(entry, from: document.entry(id))
            }
            root["mcpServers"] = .object(restored)
        }
        if let gateway = root["gateway"] {
            root["gateway"] = ConfigDocument.restoringRedactedGateway(gateway, from: document.json["gateway"])
        }
        let next = ConfigDocument(root)
        let config: GatewayConfig
        do { config = try next.decoded(environment: environment, source: "admin API") } catch { throw .invalid(error) }
        if let field = Self.changedGatewayField(gateway.settings, config.gateway) {
            throw .conflict("gateway.\(field) cannot change while the gateway runs; edit the file and restart it")
        }
        try commit(next)
        return await gateway.reconcile(to: config.servers)
    }

    /// Re-reads the file (SIGHUP, or the file changed on disk) and reconciles like ``replaceDocument(_:)``.
    package func reload() async throws(ConfigStoreError) -> ReconcileChanges {
        guard let path else { return ReconcileChanges(unchanged: gateway.snapshot.order) }
        let next: ConfigDocument
        do { next = try ConfigLoader.loadDocument(path: path) } catch { throw .invalid(error) }
        let config: GatewayConfig
        do { config = try next.decoded(environment: environment, source: path) } catch { throw .invalid(error) }
        if let field = Self.changedGatewayField(gateway.settings, config.gateway) {
            logger.warning("gateway.\(field) changed in the file; it takes effect after a restart")
        }
        document = next
        gateway.connector.withheldEnvironment.adopt(next)
        return await gateway.reconcile(to: config.servers)
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

    /// Where a redaction mark is still in `entry` after restoring: a hidden value sent back for a place that
    /// has none stored would otherwise become the literal text `********`.
    static func leftoverRedaction(in entry: JSONValue) -> String? {
        if ConfigDocument.holdsRedactionMark(entry["url"]) { return "url" }
        for section in ["env", "headers"] {
            for (key, value) in entry[section]?.objectValue ?? [:] where ConfigDocument.holdsRedactionMark(value) {
                return "\(section).\(key)"
            }
        }
        if ConfigDocument.holdsRedactionMark(entry["auth"]?["clientSecret"]) { return "auth.clientSecret" }
        return nil
    }

    /// Writes `next` (atomically: the file is the old version or the new one, never a mix) and adopts it.
    private func commit(_ next: ConfigDocument) throws(ConfigStoreError) {
        if let path {
            do { try AtomicFile.write(next.serialized(), to: path, mode: 0o600) } catch {
                throw .storage("could not save the config to \(path): \(error)")
            }
        }
        document = next
        gateway.connector.withheldEnvironment.adopt(next)
    }

    /// The first gateway setting that differs, by its config key.
    static func changedGatewayField(_ old: GatewaySettings, _ new: GatewaySettings) -> String? {
        if old.listenHost != new.listenHost || old.listenPort != new.listenPort { return "listen" }
        if old.toolSeparator != new.toolSeparator { return "toolSeparator" }
        if old.adminToken != new.adminToken { return "adminToken" }
        if old.clientTokens != new.clientTokens { return "clientTokens" }
        if old.allowedOrigins != new.allowedOrigins { return "allowedOrigins" }
        if old.maxBodyBytes != new.maxBodyBytes { return "maxBodyBytes" }
        if old.dataDir != new.dataDir { return "dataDir" }
        if old.publicURL != new.publicURL { return "publicURL" }
        if old.oauthCallback != new.oauthCallback { return "oauthCallback" }
        return nil
    }
}

/// Why an operator's config change was refused; the admin API maps each case to its HTTP status.
package enum ConfigStoreError: Error, Sendable, CustomStringConvertible {
    case invalid(ConfigError)
    case unknownServer(String)
    case duplicateServer(String)
    case conflict(String)
    case storage(String)

    package var description: String {
        switch self {
        case .invalid(let error): "\(error)"
        case .unknownServer(let id): "no server \(id)"
        case .duplicateServer(let id): "a server \(id) already exists"
        case .conflict(let message), .storage(let message): message
        }
    }

    init(_ error: ControlError) {
        switch error {
        case .unknownServer(let id): self = .unknownServer(id)
        case .duplicateServer(let id): self = .duplicateServer(id)
        case .conflict(let message): self = .conflict(message)
        }
    }
}
