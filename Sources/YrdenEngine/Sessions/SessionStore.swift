import Synchronization
import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// Every live downstream session, by id, with a bound on how many and for how long.
///
/// Session ids are 128 random bits from the system's CSPRNG in hex: unguessable, and only visible ASCII as
/// the transport requires. At most `limit` sessions exist at once, at most `perClientLimit` of them one
/// client's (``ClientKey``), so one client cannot take every session from the others; and a session unused
/// for `idleTimeout` ends, so clients that vanish without DELETE cannot grow memory.
package final class SessionStore: Sendable {
    private struct Table {
        var sessions: [String: DownstreamSession] = [:]
        /// Sessions open per client; a client with none has no entry.
        var perClient: [ClientKey: Int] = [:]

        mutating func remove(_ id: String) -> DownstreamSession? {
            guard let session = sessions.removeValue(forKey: id) else { return nil }
            if let client = session.client {
                let left = (perClient[client] ?? 1) - 1
                perClient[client] = left > 0 ? left : nil
            }
            return session
        }
    }

    private let table = Mutex(Table())
    package let limit: Int
    package let perClientLimit: Int
    package let idleTimeout: Duration
    /// The clock idle time is counted on (the gateway's).
    private let time: any TimeSource

    package init(
        limit: Int = GatewaySettings.defaultMaxSessions,
        perClientLimit: Int = GatewaySettings.defaultMaxSessionsPerClient,
        idleTimeout: Duration = GatewaySettings.defaultSessionIdleTimeout,
        time: any TimeSource = SystemTime()
    ) {
        self.time = time
        self.limit = limit
        self.perClientLimit = perClientLimit
        self.idleTimeout = idleTimeout
    }

    package var count: Int { table.withLock { $0.sessions.count } }

    /// Sessions `client` holds.
    package func count(of client: ClientKey) -> Int { table.withLock { $0.perClient[client] ?? 0 } }

    /// A new session of `client` (`nil`: one the per-client bound does not apply to, a stdio client's);
    /// refused when `limit` sessions are open or `client` holds `perClientLimit`. Keeps only the identifying
    /// part of `clientInfo` and what the gateway reads of `capabilities`.
    func create(
        protocolVersion: String,
        clientInfo: JSONValue?,
        capabilities: JSONObject = [:],
        scope: CatalogScope = .gateway,
        client: ClientKey? = nil,
        caller: Caller = .anonymous
    ) throws(SessionLimitReached) -> DownstreamSession {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<4).map { _ in
            let hex = String(generator.next() as UInt32, radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
        let session = DownstreamSession(
            id: id,
            protocolVersion: protocolVersion,
            clientInfo: ClientIdentity.kept(from: clientInfo),
            capabilities: ClientCapabilities.kept(from: capabilities),
            scope: scope,
            client: client,
            caller: caller,
            time: time
        )
        let refusal = table.withLock { table -> SessionLimitReached? in
            guard table.sessions.count < limit else { return SessionLimitReached(limit: limit) }
            if let client {
                let held = table.perClient[client] ?? 0
                guard held < perClientLimit else { return SessionLimitReached(limit: perClientLimit, perClient: true) }
                table.perClient[client] = held + 1
            }
            table.sessions[id] = session
            return nil
        }
        if let refusal { throw refusal }
        return session
    }

    package func session(_ id: String) -> DownstreamSession? {
        table.withLock { $0.sessions[id] }
    }

    /// Ends and forgets a session; `false` when there was none.
    package func end(_ id: String) -> Bool {
        guard let session = table.withLock({ $0.remove(id) }) else { return false }
        session.end()
        return true
    }

    func endAll() {
        let all = table.withLock { table in
            defer { table = Table() }
            return Array(table.sessions.values)
        }
        all.forEach { $0.end() }
    }

    func all() -> [DownstreamSession] {
        table.withLock { Array($0.sessions.values) }
    }

    /// Ends every session unused for `idleTimeout` (one with a call running counts as used now), and returns
    /// the instant the next one can expire: the earliest deadline of those left, or a whole timeout from now
    /// when none is open (a session opened later expires later still). Sleeping until then needs no polling.
    @discardableResult
    func expireIdle(now: ContinuousClock.Instant? = nil) -> (ended: Int, next: ContinuousClock.Instant) {
        let now = now ?? time.now
        let (idle, next) = table.withLock { table in
            var idle: [DownstreamSession] = []
            var next = now + idleTimeout
            for session in table.sessions.values {
                if session.hasCallsInFlight { session.touch(at: now) }
                let deadline = session.lastSeen + idleTimeout
                if deadline <= now {
                    idle.append(session)
                } else {
                    next = min(next, deadline)
                }
            }
            for session in idle { _ = table.remove(session.id) }
            return (idle, next)
        }
        idle.forEach { $0.end() }
        return (idle.count, next)
    }
}
