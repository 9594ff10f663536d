import Logging
import Synchronization

/// The last entries about one upstream (what it wrote to stderr, what the gateway noted about it), or about
/// the gateway itself; bounded so a chatty server cannot grow the gateway's memory. Shown when a server
/// fails, and served by the admin API.
package final class LogRing: Sendable {
    package struct Entry: Sendable, Hashable {
        /// Wall-clock time, seconds since 1970.
        package internal(set) var time: Double
        package internal(set) var level: Logger.Level
        package internal(set) var server: String?
        /// A short machine name: `stderr`, `transport`, `state`, `config`.
        package internal(set) var event: String
        package internal(set) var message: String
        package internal(set) var metadata: [String: String]
    }

    private struct Ring {
        var entries: [Entry] = []
        var next = 0
    }

    package let server: String?
    private let capacity: Int
    private let ring = Mutex(Ring())

    package init(server: String?, capacity: Int = 500) {
        self.server = server
        self.capacity = capacity
    }

    package func append(
        _ message: String,
        level: Logger.Level = .info,
        event: String,
        metadata: [String: String] = [:]
    ) {
        let entry = Entry(
            time: WallClock.now(),
            level: level,
            server: server,
            event: event,
            message: message,
            metadata: metadata
        )
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
