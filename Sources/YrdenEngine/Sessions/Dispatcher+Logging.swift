import Synchronization
import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// Upstreams' log messages, relayed to the clients that asked for them.
///
/// A handshake-era client asks with `logging/setLevel`, for its session; a 2026-07-28 client with
/// `_meta.logLevel`, for one request. A message sent as part of a call (on its POST's stream) goes to that
/// call's client alone; any other (a stdio server's, a GET stream's) goes to every session whose level it
/// meets. Upstreams are asked for the most verbose level any session wants, so nothing asked for is lost
/// upstream. Every message says which server sent it in its `logger`.
extension Dispatcher {
    /// `logging/setLevel` of a session: kept for the session, and passed on to the upstreams that log.
    func setLogLevel(
        _ request: JSONRPCRequest,
        session: DownstreamSession
    ) async throws(JSONRPCError)
        -> Result<JSONValue, JSONRPCError>
    {
        session.logLevel = try LoggingLevel(validating: request.params?["level"])
        await askUpstreamsToLog(snapshot)
        return .success([:])
    }

    /// The level upstreams are asked to log at: the most verbose any session wants; `nil` when none asked.
    var upstreamLogLevel: LoggingLevel? {
        sessions.all().compactMap(\.logLevel).min()
    }

    /// Tells every connected upstream the level sessions want (in its era: see
    /// ``UpstreamClient/setLogLevel(_:capabilities:timeout:)``), and waits for their answers (each within its
    /// request timeout). Failures are the upstream's to log.
    func askUpstreamsToLog(_ snapshot: Snapshot) async {
        guard let level = upstreamLogLevel else { return }
        await withDiscardingTaskGroup { group in
            for link in snapshot.links.values where link.state.isConnected {
                guard let client = link.client else { continue }
                let capabilities = link.handshake?.capabilities ?? [:]
                let timeout = link.spec.timeouts.request
                group.addTask { await client.setLogLevel(level, capabilities: capabilities, timeout: timeout) }
            }
        }
    }

    /// A message an upstream sent outside any call: to every session whose level it meets.
    func relayLog(_ params: JSONValue, from server: String) {
        for session in sessions.all() {
            guard let level = session.logLevel, let message = Self.logMessage(params, from: server, atLeast: level)
            else { continue }
            session.deliver(.notification(message))
        }
    }

    /// The `notifications/message` a client gets for `params` from `server`, if its level is `level` or
    /// more severe: `logger` names the server (`<server>` or `<server>/<logger>`).
    static func logMessage(
        _ params: JSONValue,
        from server: String,
        atLeast level: LoggingLevel
    ) -> JSONRPCNotification? {
        guard let sent = params["level"]?.stringValue.flatMap(LoggingLevel.init(rawValue:)), sent >= level,
            var object = params.objectValue
        else { return nil }
        object["logger"] = .string(object["logger"]?.stringValue.map { "\(server)/\($0)" } ?? server)
        return JSONRPCNotification(method: MCPMethod.message, params: .object(object))
    }
}
