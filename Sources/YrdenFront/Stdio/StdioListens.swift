import Synchronization
import YrdenEngine
import YrdenProtocol

/// The `subscriptions/listen` requests open on one stdio connection, by request id: a client ends one with
/// `notifications/cancelled` naming it, and the end of stdin ends them all. Each is a stored session (bounded
/// by `gateway.maxSessions`), so the gateway's change announcements reach it.
final class StdioListens: Sendable {
    private struct Open {
        let session: DownstreamSession
        var cancelledByClient = false
    }

    private let open = Mutex<[JSONRPCID: Open]>([:])

    /// Registers a subscription; `false` when one with this id is already open.
    func add(_ id: JSONRPCID, session: DownstreamSession) -> Bool {
        open.withLock { open in
            guard open[id] == nil else { return false }
            open[id] = Open(session: session)
            return true
        }
    }

    /// The client cancelled subscription `id`: its session is ended; `false` if no such subscription is open.
    func cancel(_ id: JSONRPCID, in sessions: SessionStore) -> Bool {
        let session = open.withLock { open -> DownstreamSession? in
            open[id]?.cancelledByClient = true
            return open[id]?.session
        }
        guard let session else { return false }
        _ = sessions.end(session.id)
        return true
    }

    /// Forgets subscription `id` once its stream ended; `true` when the client had cancelled it (then nothing
    /// more is said for it).
    func finish(_ id: JSONRPCID) -> Bool {
        open.withLock { $0.removeValue(forKey: id)?.cancelledByClient ?? false }
    }

    /// Ends every subscription (stdin closed).
    func endAll(in sessions: SessionStore) {
        for open in open.withLock({ Array($0.values) }) { _ = sessions.end(open.session.id) }
    }
}
