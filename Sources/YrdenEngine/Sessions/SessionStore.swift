import Synchronization
import YrdenConfig
import YrdenProtocol

/// Every live downstream session, by id, with a bound on how many and for how long.
///
/// Session ids are 128 random bits from the system's CSPRNG in hex: unguessable, and only visible ASCII as
/// the transport requires. At most `limit` sessions exist at once, and a session unused for `idleTimeout`
/// ends, so clients that vanish without DELETE cannot grow memory.
package final class SessionStore: Sendable {
    private let sessions = Mutex<[String: DownstreamSession]>([:])
    package let limit: Int
    package let idleTimeout: Duration

    package init(
        limit: Int = GatewaySettings.defaultMaxSessions,
        idleTimeout: Duration = GatewaySettings.defaultSessionIdleTimeout
    ) {
        self.limit = limit
        self.idleTimeout = idleTimeout
    }

    package var count: Int { sessions.withLock { $0.count } }

    /// A new session; refused when `limit` sessions are open. Keeps only the identifying part of `clientInfo`
    /// and what the gateway reads of `capabilities`.
    func create(
        protocolVersion: String,
        clientInfo: JSONValue?,
        capabilities: JSONObject = [:],
        scope: CatalogScope = .gateway
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
            scope: scope
        )
        let admitted = sessions.withLock { sessions in
            guard sessions.count < limit else { return false }
            sessions[id] = session
            return true
        }
        guard admitted else { throw SessionLimitReached(limit: limit) }
        return session
    }

    package func session(_ id: String) -> DownstreamSession? {
        sessions.withLock { $0[id] }
    }

    /// Ends and forgets a session; `false` when there was none.
    package func end(_ id: String) -> Bool {
        guard let session = sessions.withLock({ $0.removeValue(forKey: id) }) else { return false }
        session.end()
        return true
    }

    func endAll() {
        let all = sessions.withLock { sessions in
            defer { sessions.removeAll() }
            return Array(sessions.values)
        }
        all.forEach { $0.end() }
    }

    func all() -> [DownstreamSession] {
        sessions.withLock { Array($0.values) }
    }

    /// Ends every session unused for `idleTimeout` (one with a call running counts as used now), and returns
    /// the instant the next one can expire: the earliest deadline of those left, or a whole timeout from now
    /// when none is open (a session opened later expires later still). Sleeping until then needs no polling.
    @discardableResult
    func expireIdle(now: ContinuousClock.Instant = .now) -> (ended: Int, next: ContinuousClock.Instant) {
        let (idle, next) = sessions.withLock { sessions in
            var idle: [DownstreamSession] = []
            var next = now + idleTimeout
            for session in sessions.values {
                if session.hasCallsInFlight { session.touch(at: now) }
                let deadline = session.lastSeen + idleTimeout
                if deadline <= now {
                    idle.append(session)
                } else {
                    next = min(next, deadline)
                }
            }
            for session in idle { sessions.removeValue(forKey: session.id) }
            return (idle, next)
        }
        idle.forEach { $0.end() }
        return (idle.count, next)
    }
}
