import Synchronization

/// The bytes of a legacy SSE stream's events that wait for its client, bounded: events are counted in bytes
/// as well as in number, since one connection that never read held a gigabyte of large events.
///
/// One event of any size is taken while nothing waits (a large result reaches a client that reads); past
/// that the total stays within `limit`.
final class QueuedEventBytes: Sendable {
    let limit: Int
    private let queued = Mutex(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts `count` more bytes as waiting; `false` (nothing counted) when that would pass the limit.
    func add(_ count: Int) -> Bool {
        queued.withLock { queued in
            guard queued == 0 || queued + count <= limit else { return false }
            queued += count
            return true
        }
    }

    /// `count` bytes were handed to the client's connection.
    func remove(_ count: Int) {
        queued.withLock { $0 -= count }
    }

    var count: Int { queued.withLock { $0 } }
}
