import YrdenConfig
import YrdenEngine
import YrdenProtocol
import YrdenTransport

/// One server as the `Server` schema shows it: the engine's status (with what the server said on its last
/// connection and its last failure) and the entry as written (secrets already redacted by the config store).
///
/// Nothing here reads a `ServerSpec`'s environment or headers: the entry comes from the store's redacted
/// document, so a secret cannot leak through this view.
struct ServerView: Sendable {
    var id: String
    var transport: String
    var enabled: Bool
    var state: ConnectionState
    var tools = 0
    var prompts = 0
    var resources = 0
    var protocolVersion: String?
    var serverInfo: JSONValue?
    /// `handshake` for every revision up to 2025-11-25; `nil` before the first connection.
    var era: String?
    /// The error that ended the last connection or attempt; kept while the next attempt runs.
    var lastError: UpstreamError?
    /// When ``lastError`` happened, in seconds since the epoch, when known.
    var lastErrorAt: Double?
    /// The `mcpServers` entry, redacted.
    var entry: JSONValue
    /// An OAuth server's sign-in progress.
    var auth: SignInStatus?

    init(status: ServerStatus, entry: JSONValue) {
        id = status.id
        transport = status.transportName
        enabled = !status.spec.disabled
        state = status.state
        tools = status.counts.tools
        prompts = status.counts.prompts
        resources = status.counts.resources
        protocolVersion = status.lastHandshake?.protocolVersion
        serverInfo = status.lastHandshake?.serverInfo
        era = status.era
        lastError = status.state.lastError ?? status.lastFailure?.error
        lastErrorAt = status.lastFailure?.at
        self.entry = entry
        auth = status.auth
    }

    init(id: String, transport: String, enabled: Bool, state: ConnectionState, entry: JSONValue) {
        self.id = id
        self.transport = transport
        self.enabled = enabled
        self.state = state
        self.lastError = state.lastError
        self.entry = entry
    }

    var counts: JSONValue { Self.counts(tools: tools, prompts: prompts, resources: resources) }

    /// `CatalogCounts`: what the server contributes to `/mcp` now.
    static func counts(tools: Int, prompts: Int, resources: Int) -> JSONValue {
        ["tools": .int(tools), "prompts": .int(prompts), "resources": .int(resources)]
    }

    var json: JSONValue {
        [
            "id": .string(id),
            "transport": .string(transport),
            "enabled": .bool(enabled),
            "state": .string(state.name),
            "auth": auth.map(Self.authProgress) ?? .null,
            "lastError": lastError.map { Self.errorInfo($0, at: lastErrorAt) } ?? .null,
            "reconnect": Self.reconnect(state),
            "connectedSince": Self.connectedSince(state),
            "counts": counts,
            "protocolVersion": protocolVersion.map(JSONValue.string) ?? .null,
            "serverInfo": serverInfo.flatMap { $0.objectValue.map(JSONValue.object) } ?? .null,
            "era": era.map(JSONValue.string) ?? .null,
            "config": entry,
        ]
    }

    /// `UpstreamErrorInfo`: the kind, the message (upstream errors never carry header values), the HTTP status
    /// and, when known, the time it happened.
    static func errorInfo(_ error: UpstreamError, at: Double? = nil) -> JSONValue {
        var info: JSONObject = ["kind": .string(error.kind.rawValue), "message": .string(error.message)]
        if let status = error.httpStatus, (100...599).contains(status) { info["httpStatus"] = .int(status) }
        if let at { info["at"] = .string(RFC3339.string(epochSeconds: at)) }
        return .object(info)
    }

    /// `AuthProgress`: the status, the URL to open while waiting for the user, the reason of a failure.
    static func authProgress(_ sign: SignInStatus) -> JSONValue {
        var object: JSONObject = ["status": .string(sign.status)]
        if let url = sign.authorizationURL { object["authorizationURL"] = .string(url) }
        if let expiresAt = sign.expiresAt { object["expiresAt"] = .string(RFC3339.string(epochSeconds: expiresAt)) }
        if let reason = sign.reason { object["reason"] = .string(reason) }
        return .object(object)
    }

    /// `ReconnectStatus`. The engine counts connection attempts (the first one is attempt 1); the API counts
    /// retries: a failed attempt `n` with a retry scheduled means retry `n` is next, and attempt `n` under way
    /// is retry `n - 1`.
    static func reconnect(_ state: ConnectionState) -> JSONValue {
        switch state {
        case .connecting(let attempt) where attempt > 1:
            return ["attempt": .int(attempt - 1), "nextRetryAt": .null]
        case .failed(_, let attempt, let retryAt?):
            return [
                "attempt": .int(max(1, attempt)),
                "nextRetryAt": .string(RFC3339.string(epochSeconds: WallClock.time(of: retryAt))),
            ]
        default:
            return .null
        }
    }

    static func connectedSince(_ state: ConnectionState) -> JSONValue {
        guard case .connected(let since) = state else { return .null }
        return .string(RFC3339.string(epochSeconds: WallClock.time(of: since)))
    }
}
