/// The bookkeeping of one origin's connection pool, without I/O: which connections are idle, how many are open
/// (or opening), and who waits for one. The pool holds it under its lock and does what it answers.
///
/// Bounds: at most `maxConnections` open, at most `maxWaiters` waiting (past them a lease is refused at once,
/// never queued without end). Idle connections are reused most recent first, so a burst's extra connections
/// grow idle together and are closed by ``expired(before:)``.
struct PoolBook<Connection: Equatable, Waiter> {
    let maxConnections: Int
    let maxWaiters: Int
    private(set) var idle: [(connection: Connection, since: UInt64)] = []
    /// Connections open or being opened, idle ones included.
    private(set) var open = 0
    private(set) var waiters: [(id: UInt64, waiter: Waiter)] = []

    init(maxConnections: Int, maxWaiters: Int) {
        self.maxConnections = maxConnections
        self.maxWaiters = maxWaiters
    }

    /// What a caller asking for a connection is to do.
    enum Lease: Equatable {
        case reuse(Connection)
        /// Open one: a place was counted for it.
        case open
        /// Wait: it was queued under the id it gave.
        case wait
        /// Every connection is busy and the queue is full.
        case refuse
    }

    /// Takes an idle connection, else a place to open one, else a place in the queue for `waiter`.
    mutating func lease(id: UInt64, _ waiter: @autoclosure () -> Waiter) -> Lease {
        if let last = idle.popLast() { return .reuse(last.connection) }
        if open < maxConnections {
            open += 1
            return .open
        }
        guard waiters.count < maxWaiters else { return .refuse }
        waiters.append((id, waiter()))
        return .wait
    }

    /// What becomes of a connection given back, or of a place given up.
    enum Handoff {
        /// To the first waiter, to use as it is.
        case reuse(Waiter)
        /// To the first waiter, to open a connection in the place given up.
        case open(Waiter)
        /// Kept idle, or nobody waited for the place.
        case none
    }

    /// A connection's exchange ended: reusable, it goes to the first waiter or idles (stamped `now`); not,
    /// its place goes to the first waiter or is freed.
    mutating func release(_ connection: Connection, reusable: Bool, now: UInt64) -> Handoff {
        guard reusable else { return giveUpPlace() }
        guard waiters.isEmpty else { return .reuse(waiters.removeFirst().waiter) }
        idle.append((connection, now))
        return .none
    }

    /// A connection could not be opened, or one in use closed: its place goes to the first waiter or is freed.
    mutating func giveUpPlace() -> Handoff {
        guard waiters.isEmpty else { return .open(waiters.removeFirst().waiter) }
        open -= 1
        return .none
    }

    /// An idle connection closed (the server closed it, or it expired): forgotten, its place freed. False when
    /// it was not idle (in use, its exchange sees the close).
    mutating func closedWhileIdle(_ connection: Connection) -> Bool {
        guard let index = idle.firstIndex(where: { $0.connection == connection }) else { return false }
        idle.remove(at: index)
        open -= 1
        return true
    }

    /// The waiter `id`, taken out of the queue (its deadline passed, or it was cancelled); `nil` when it was
    /// already handed something.
    mutating func removeWaiter(_ id: UInt64) -> Waiter? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).waiter
    }

    /// The connections idle since before `cutoff`, taken out (the caller closes them; their places are freed).
    mutating func expired(before cutoff: UInt64) -> [Connection] {
        let old = idle.filter { $0.since < cutoff }.map(\.connection)
        guard !old.isEmpty else { return [] }
        idle.removeAll { $0.since < cutoff }
        open -= old.count
        return old
    }
}
