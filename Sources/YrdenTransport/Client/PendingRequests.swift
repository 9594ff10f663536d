import Synchronization
import YrdenProtocol

/// The requests sent to one upstream that still await an answer, keyed by the id the gateway minted.
///
/// A lock, not an actor: the channel's reader thread resolves entries directly, so an answer reaches the
/// waiting task without another hop. Every entry leaves the table exactly once: answered, failed, timed
/// out, or cancelled. The table also records the deadline its ``DeadlineTimer`` waits for, so a request
/// only wakes the timer when it is due earlier than that.
final class PendingRequests: Sendable {
    typealias Reply = Result<JSONValue, JSONRPCError>

    struct Entry {
        var continuation: CheckedContinuation<Reply, any Error>
        var deadline: ContinuousClock.Instant
        /// Progress pushes `deadline` forward, but never past this.
        var hardDeadline: ContinuousClock.Instant
        var extendBy: Duration
        /// How long past `deadline` the request still waits, so a channel's own reason can fail it first.
        var grace: Duration = .zero
        var onProgress: (@Sendable (JSONValue) -> Void)?
        /// Where the upstream's own requests during this one go; `nil`: nowhere (they are refused).
        var relay: (any ServerRequestRelay)? = nil
        /// Where log messages sent as part of this request go; `nil`: to the upstream's events.
        var onMessage: (@Sendable (JSONValue) -> Void)? = nil
        /// The client asked for log messages of this request (see ``RequestOptions/asksForLogs``): a message
        /// that comes without saying its request (stdio, a GET stream, legacy SSE) is this one's when no
        /// other request in flight asked.
        var askedForLogs = false
        /// A message attributed to this request is also the upstream's event: a handshake-era server's
        /// messages belong to its session with the gateway too, which sessions with a level follow.
        var logsAlsoToEvents = false

        /// When the request times out.
        var expiry: ContinuousClock.Instant { deadline + grace }
    }

    /// A request that timed out, taken out of the table.
    struct Overdue {
        var id: Int
        var timeout: Duration
        var continuation: CheckedContinuation<Reply, any Error>
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var failure: UpstreamError?
        /// The expiry the timer sleeps towards; `nil` while it is idle.
        var armed: ContinuousClock.Instant?

        /// Records `expiry` and says whether the timer must wake for it (it is due before the armed one).
        mutating func arm(_ expiry: ContinuousClock.Instant) -> Bool {
            if let armed, armed <= expiry { return false }
            armed = expiry
            return true
        }
    }

    private let state = Mutex(State())
    /// Wakes the timer for a deadline earlier than the one it waits for.
    private let wake: @Sendable () -> Void

    init(wake: @escaping @Sendable () -> Void = {}) {
        self.wake = wake
    }

    /// Adds an entry, or fails at once if the connection has already failed.
    /// Requests waiting for their answer now.
    var inFlight: Int { state.withLock { $0.entries.count } }

    func register(_ id: Int, _ entry: Entry) {
        let (failure, earlier) = state.withLock { state -> (UpstreamError?, Bool) in
            if let failure = state.failure { return (failure, false) }
            state.entries[id] = entry
            return (nil, state.arm(entry.expiry))
        }
        if let failure { entry.continuation.resume(throwing: failure) }
        if earlier { wake() }
    }

    /// Completes the request; `false` when nobody waits for it any more (late or unknown answers are dropped).
    @discardableResult
    func resolve(_ id: Int, with reply: Reply) -> Bool {
        guard let entry = state.withLock({ $0.entries.removeValue(forKey: id) }) else { return false }
        entry.continuation.resume(returning: reply)
        return true
    }

    /// Fails one request; `false` when it was no longer pending.
    @discardableResult
    func fail(_ id: Int, with error: UpstreamError) -> Bool {
        guard let entry = state.withLock({ $0.entries.removeValue(forKey: id) }) else { return false }
        entry.continuation.resume(throwing: error)
        return true
    }

    /// Fails everything in flight and every later registration: the connection is gone.
    func failAll(with error: UpstreamError) {
        let entries = state.withLock { state in
            state.failure = state.failure ?? error
            state.armed = nil
            defer { state.entries.removeAll() }
            return Array(state.entries.values)
        }
        entries.forEach { $0.continuation.resume(throwing: error) }
    }

    /// Passes a progress notification to the request it belongs to and extends its deadline.
    func progress(_ id: Int, params: JSONValue, now: ContinuousClock.Instant) {
        let (sink, earlier) = state.withLock { state -> ((@Sendable (JSONValue) -> Void)?, Bool) in
            guard var entry = state.entries[id] else { return (nil, false) }
            entry.deadline = min(entry.hardDeadline, max(entry.deadline, now + entry.extendBy))
            state.entries[id] = entry
            return (entry.onProgress, state.arm(entry.expiry))
        }
        if earlier { wake() }
        sink?(params)
    }

    /// The ids whose deadline has passed, each with its timeout; the caller fails them (and tells the upstream).
    func expired(at now: ContinuousClock.Instant) -> [(id: Int, timeout: Duration)] {
        state.withLock { state in
            state.entries.filter { $0.value.expiry <= now }.map { ($0.key, $0.value.extendBy) }
        }
    }

    /// Takes out the requests overdue at `now` for the caller to fail, and arms the timer for the earliest
    /// expiry still pending (`nil`: nothing is, and the timer idles until the next registration).
    func takeOverdue(at now: ContinuousClock.Instant) -> (overdue: [Overdue], next: ContinuousClock.Instant?) {
        state.withLock { state in
            var overdue: [Overdue] = []
            var next: ContinuousClock.Instant?
            for (id, entry) in state.entries {
                if entry.expiry <= now {
                    overdue.append(Overdue(id: id, timeout: entry.extendBy, continuation: entry.continuation))
                } else if next.map({ entry.expiry < $0 }) ?? true {
                    next = entry.expiry
                }
            }
            for request in overdue { state.entries.removeValue(forKey: request.id) }
            state.armed = state.failure == nil ? next : nil
            return (overdue, state.armed)
        }
    }

    /// The relays of request `related` (when it is in flight), or of every request in flight.
    func relays(relatedTo related: Int?) -> [any ServerRequestRelay] {
        state.withLock { state in
            if let related, let entry = state.entries[related] { return entry.relay.map { [$0] } ?? [] }
            return state.entries.values.compactMap(\.relay)
        }
    }

    /// Where a log message goes.
    enum LogDestination {
        /// The caller of the request it belongs to; with `alsoEvents`, the upstream's events too.
        case request(@Sendable (JSONValue) -> Void, alsoEvents: Bool)
        /// Several requests in flight asked for logs: whose it is cannot be told. With `alsoEvents` it
        /// is still the upstream's event (a handshake-era server's session-wide message).
        case unattributable(alsoEvents: Bool)
        /// No request's: the upstream's events (a handshake-era server's session-wide messages).
        case events
    }

    /// Where a log message sent as part of request `related` goes: that request's caller when it is in flight
    /// and wants them. Without `related` (a stdio pipe, a GET stream, legacy SSE), the one request in flight
    /// that asked for logs (see ``Entry/askedForLogs``), as the upstream's own requests are attributed.
    func logDestination(relatedTo related: Int?) -> LogDestination {
        state.withLock { state in
            if let related {
                return state.entries[related]?.onMessage.map { .request($0, alsoEvents: false) } ?? .events
            }
            var asker: Entry?
            for entry in state.entries.values where entry.askedForLogs {
                guard asker == nil else { return .unattributable(alsoEvents: entry.logsAlsoToEvents) }
                asker = entry
            }
            guard let asker, let handler = asker.onMessage else { return .events }
            return .request(handler, alsoEvents: asker.logsAlsoToEvents)
        }
    }
}
