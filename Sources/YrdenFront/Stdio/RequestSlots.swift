import Synchronization
import YrdenProtocol

/// How many requests of the stdio client run at once.
///
/// A request past the limit is answered at once with an error instead of being started, so a host cannot
/// make the gateway hold unbounded work. The reading loop itself never waits for a slot: a cancellation
/// or the response that frees a slot must still get through.
final class RequestSlots: Sendable {
    static let defaultLimit = 128

    let limit: Int
    private let free: Mutex<Int>

    init(limit: Int = defaultLimit) {
        self.limit = max(limit, 1)
        free = Mutex(self.limit)
    }

    /// Takes a slot; `false` when all are taken.
    func take() -> Bool {
        free.withLock { free in
            guard free > 0 else { return false }
            free -= 1
            return true
        }
    }

    func release() {
        free.withLock { $0 += 1 }
    }

    /// What a request that found no slot is answered.
    var busy: JSONRPCError {
        JSONRPCError(
            code: -32000,
            message: "too many requests in flight: at most \(limit) run at once; wait for answers before sending more"
        )
    }
}
