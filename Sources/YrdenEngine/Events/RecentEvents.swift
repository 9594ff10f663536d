/// The last events the bus handed out, so a client of the admin event stream that reconnects with
/// `Last-Event-ID` gets what it missed instead of re-reading everything.
///
/// Bounded twice: at most ``maxEvents`` events and about ``maxBytes`` of them (a tool pin event carries two
/// definitions of up to 1 MiB each); the oldest go first.
struct RecentEvents: Sendable {
    static let maxEvents = 1024
    static let maxBytes = 8 << 20

    /// Oldest first, numbered without gaps.
    private var events: [SequencedEvent] = []
    private var start = 0
    private var bytes = 0

    mutating func append(_ event: SequencedEvent) {
        events.append(event)
        bytes += Self.size(of: event.event)
        while events.count - start > Self.maxEvents || (bytes > Self.maxBytes && events.count - start > 1) {
            bytes -= Self.size(of: events[start].event)
            start += 1
        }
        // Compacted once half of the storage is dropped events, so appends stay amortized O(1).
        if start > Self.maxEvents { (events, start) = (Array(events[start...]), 0) }
    }

    /// Every event numbered after `last`, when this holds them all (`last` is the last number handed out, or
    /// the one before an event still held); `nil` when some are gone or `last` was never handed out.
    func after(_ last: UInt64, lastHandedOut: UInt64) -> ArraySlice<SequencedEvent>? {
        if last == lastHandedOut { return [] }
        guard last < lastHandedOut, let oldest = events[start...].first, oldest.sequence <= last + 1 else {
            return nil
        }
        return events[(start + Int(last + 1 - oldest.sequence))...]
    }

    /// About what an event holds: a little for a server's, the definitions' size for a tool pin's.
    private static func size(of event: GatewayEvent) -> Int {
        guard case .toolPin(let pin) = event else { return 256 }
        return 256 + pin.change.from.canonicalBytes + pin.change.to.canonicalBytes
    }
}
