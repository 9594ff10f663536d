import Synchronization
import YrdenProtocol

/// Every live downstream session, by id.
///
/// Session ids are 128 random bits from the system's CSPRNG in hex: unguessable, and only visible ASCII as
/// the transport requires. Idle sessions expire so that clients that vanish without DELETE cannot grow memory.
package final class SessionStore: Sendable {
    private let sessions = Mutex<[String: DownstreamSession]>([:])
    package static let idleTimeout: Duration = .seconds(3600)

    package init() {}

    package var count: Int { sessions.withLock { $0.count } }

    func create(protocolVersion: String, clientInfo: JSONValue) -> DownstreamSession {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<4).map { _ in
            let hex = String(generator.next() as UInt32, radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
        let session = DownstreamSession(id: id, protocolVersion: protocolVersion, clientInfo: clientInfo)
        sessions.withLock { $0[id] = session }
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

    func expireIdle(now: ContinuousClock.Instant = .now) {
        let idle = sessions.withLock { sessions in
            let expired = sessions.filter { now - $0.value.lastSeen > Self.idleTimeout }
            for id in expired.keys { sessions.removeValue(forKey: id) }
            return Array(expired.values)
        }
        idle.forEach { $0.end() }
    }
}
