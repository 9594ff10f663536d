import Synchronization
import YrdenEngine

/// How many downstream WebSockets are open, in all and per client: each holds a session (or may), so they are
/// bounded as sessions are (`gateway.maxSessions`, `gateway.maxSessionsPerClient`); an upgrade past either
/// bound is refused (503) before the socket is taken.
final class OpenWebSockets: Sendable {
    let limit: Int
    let perClientLimit: Int
    private struct Counts {
        var total = 0
        var perClient: [ClientKey: Int] = [:]
    }
    private let counts = Mutex(Counts())

    init(limit: Int, perClientLimit: Int = .max) {
        self.limit = limit
        self.perClientLimit = perClientLimit
    }

    /// One counted socket, released when the last reference goes: the upgrade's closure holds it, and that
    /// closure is dropped whether or not the socket ever came (a client gone before the `101` was sent).
    final class Lease: Sendable {
        private let sockets: OpenWebSockets
        private let client: ClientKey?

        fileprivate init(_ sockets: OpenWebSockets, _ client: ClientKey?) {
            self.sockets = sockets
            self.client = client
        }

        deinit { sockets.release(client) }
    }

    /// A counted socket, or why one may not open now.
    func lease(_ client: ClientKey?) -> Result<Lease, Refusal> {
        if let refusal = take(client) { return .failure(Refusal(reason: refusal)) }
        return .success(Lease(self, client))
    }

    struct Refusal: Error {
        let reason: String
    }

    /// Why a socket may not open now, or `nil` when it was counted (release it with ``release(_:)``).
    private func take(_ client: ClientKey?) -> String? {
        counts.withLock { counts in
            guard counts.total < limit else {
                return "too many open WebSockets (\(limit), gateway.maxSessions); close one and try again"
            }
            if let client {
                guard counts.perClient[client, default: 0] < perClientLimit else {
                    return "too many open WebSockets of this client (\(perClientLimit), gateway.maxSessionsPerClient); "
                        + "close one and try again"
                }
                counts.perClient[client, default: 0] += 1
            }
            counts.total += 1
            return nil
        }
    }

    private func release(_ client: ClientKey?) {
        counts.withLock { counts in
            counts.total -= 1
            guard let client else { return }
            counts.perClient[client, default: 1] -= 1
            if counts.perClient[client] == 0 { counts.perClient[client] = nil }
        }
    }

    var count: Int { counts.withLock { $0.total } }
}
