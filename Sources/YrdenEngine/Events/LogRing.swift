import Synchronization

/// The last lines one upstream wrote to stderr or the gateway logged about it, bounded so a chatty server
/// cannot grow the gateway's memory. Shown when the server fails, and later by the admin API.
package final class LogRing: Sendable {
    package struct Entry: Sendable, Hashable {
        package var time: ContinuousClock.Instant
        package var line: String
    }

    private struct Ring {
        var entries: [Entry] = []
        var next = 0
    }

    private let capacity: Int
    private let ring = Mutex(Ring())

    package init(capacity: Int = 500) {
        self.capacity = capacity
    }

    package func append(_ line: String) {
        let entry = Entry(time: .now, line: line)
        ring.withLock { ring in
            if ring.entries.count < capacity {
                ring.entries.append(entry)
            } else {
                ring.entries[ring.next] = entry
                ring.next = (ring.next + 1) % capacity
            }
        }
    }

    /// Oldest first; at most `limit` of the newest entries.
    package func recent(_ limit: Int = .max) -> [Entry] {
        ring.withLock { ring in
            let ordered = Array(ring.entries[ring.next...] + ring.entries[..<ring.next])
            return Array(ordered.suffix(limit))
        }
    }
}
