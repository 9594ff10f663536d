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

    /// Why a socket may not open now, or `nil` when it was counted (release it with ``release(_:)``).
    func take(_ client: ClientKey?) -> String? {
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

    func release(_ client: ClientKey?) {
        counts.withLock { counts in
            counts.total -= 1
            guard let client else { return }
            counts.perClient[client, default: 1] -= 1
            if counts.perClient[client] == 0 { counts.perClient[client] = nil }
        }
    }

    var count: Int { counts.withLock { $0.total } }
}
