/// The last events the bus handed out, so a client of the admin event stream that reconnects with
/// `Last-Event-ID` gets what it missed instead of re-reading everything.
///
/// Bounded twice: at most ``maxEvents`` events and about ``maxBytes`` of what they hold (a tool pin event
/// carries two tools as they were listed, a server's event its handshake with the server's own instructions and
/// `serverInfo`; ``GatewayEvent/heldBytes``); the oldest go first, the newest stays however large.
struct RecentEvents: Sendable {
    static let maxEvents = 1024
    static let maxBytes = 8 << 20

    /// Oldest first, numbered without gaps, each with its ``GatewayEvent/heldBytes``.
    private var events: [(event: SequencedEvent, bytes: Int)] = []
    private var start = 0
    private var bytes = 0

    /// Keeps `event`, which holds `heldBytes` (measured by the caller before it took its lock: a tool's
    /// definitions can be megabytes to walk), and drops the oldest past either bound.
    mutating func append(_ event: SequencedEvent, heldBytes: Int) {
        events.append((event, heldBytes))
        bytes += heldBytes
        while events.count - start > Self.maxEvents || (bytes > Self.maxBytes && events.count - start > 1) {
            bytes -= events[start].bytes
            start += 1
        }
        // Compacted once half of the storage is dropped events, so appends stay amortized O(1).
        if start > Self.maxEvents { (events, start) = (Array(events[start...]), 0) }
    }

    /// Every event numbered after `last`, when this holds them all (`last` is the last number handed out, or
    /// the one before an event still held); `nil` when some are gone or `last` was never handed out.
    func after(_ last: UInt64, lastHandedOut: UInt64) -> [SequencedEvent]? {
        if last == lastHandedOut { return [] }
        guard last < lastHandedOut, let oldest = events[start...].first?.event, oldest.sequence <= last + 1 else {
            return nil
        }
        return events[(start + Int(last + 1 - oldest.sequence))...].map(\.event)
    }
}
