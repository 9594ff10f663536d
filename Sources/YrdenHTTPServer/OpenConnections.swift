/// Every connection libmicrohttpd holds open, and the rules that pick the ones a client holds without using.
///
/// libmicrohttpd's own timeout only measures inactivity, so a client that sends a header byte every few seconds
/// keeps a connection forever; and with its edge-triggered epoll it can miss a client's half-close that arrives
/// together with the last bytes of a partial request, leaving the socket in CLOSE_WAIT. On loopback every client
/// shares one address, so neither can be limited per address. Instead each connection that waits for a request
/// (just opened, between keep-alive requests, headers or body still arriving) gets `requestTimeout` to deliver a
/// complete one, and one whose client has closed its side while no request is complete is closed too.
///
/// A connection whose request is with the server is suspended, and libmicrohttpd does not read a suspended
/// socket: a client that leaves before its answer (a 2026-07-28 client cancelling by closing its stream) would
/// go unnoticed until an answer came. Such a connection is probed too, and its client's leaving reported once,
/// so the server can stop the handler.
///
/// It performs no I/O: `ConnectionSweeper` feeds it events and probes and closes the sockets it names, so the
/// rules are unit-testable with made-up times. `Key` identifies a connection while it is open (its pointer).
struct OpenConnections<Key: Hashable> {
    /// Why a connection is closed.
    enum Reason: Equatable {
        /// No complete request within `requestTimeout` (idle, or headers or body trickling in).
        case requestTimedOut
        /// The client closed its side before finishing a request; no request can complete any more.
        case halfClosed
    }

    /// A connection to be probed for a half-close outside the lock.
    struct Probe: Equatable {
        let id: UInt64
        let socket: Int32
    }

    /// A busy connection to be probed for its client having left, with the key the server knows it by.
    struct BusyProbe {
        let key: Key
        let socket: Int32
    }

    /// A socket the sweep decided to close.
    struct Closing: Equatable {
        let socket: Int32
        let reason: Reason
    }

    private struct Entry {
        let id: UInt64
        let socket: Int32
        /// Since when the connection has been waiting for a complete request.
        var waitingSince: ContinuousClock.Instant
        /// A request is with the server (handler, answer, stream): no deadline applies, and the connection may be
        /// suspended, which nothing but libmicrohttpd may then touch.
        var busy = false
        /// Consecutive sweeps that found the client's side closed with nothing left to read.
        var halfClosedSweeps = 0
        /// Already shut down; libmicrohttpd has yet to notice.
        var closing = false
        /// While busy: the client's leaving was reported already.
        var leftReported = false
    }

    /// Sweeps in a row that must see a half-close before the connection is closed. One is not enough: between
    /// libmicrohttpd reading a complete request and handing it over, the client's side may already be closed.
    static var halfClosedSweepsToClose: Int { 2 }

    let requestTimeout: Duration
    private var entries: [Key: Entry] = [:]
    private var nextID: UInt64 = 0

    init(requestTimeout: Duration) {
        self.requestTimeout = requestTimeout
    }

    var count: Int { entries.count }

    // MARK: Events from libmicrohttpd

    mutating func opened(_ key: Key, socket: Int32, at now: ContinuousClock.Instant) {
        nextID &+= 1
        entries[key] = Entry(id: nextID, socket: socket, waitingSince: now)
    }

    mutating func closed(_ key: Key) {
        entries[key] = nil
    }

    /// The request is complete (or refused) and with the server from now on.
    mutating func requestHandedOver(_ key: Key) {
        guard var entry = entries[key] else { return }
        entry.busy = true
        entry.halfClosedSweeps = 0
        entry.leftReported = false
        entries[key] = entry
    }

    /// The answer is sent (or the request ended otherwise): the connection waits for its next request.
    mutating func requestFinished(_ key: Key, at now: ContinuousClock.Instant) {
        guard var entry = entries[key] else { return }
        entry.busy = false
        entry.waitingSince = now
        entries[key] = entry
    }

    // MARK: The sweep

    /// Busy connections whose client has not been reported gone, to probe outside the lock.
    func busy() -> [BusyProbe] {
        entries.compactMap { key, entry in
            entry.busy && !entry.closing && !entry.leftReported ? BusyProbe(key: key, socket: entry.socket) : nil
        }
    }

    /// Records that the client of busy connection `key` left; true the first time, when it is to be reported.
    mutating func clientLeft(_ key: Key) -> Bool {
        guard var entry = entries[key], entry.busy, !entry.leftReported else { return false }
        entry.leftReported = true
        entries[key] = entry
        return true
    }

    /// Connections waiting for a request, whose sockets the sweeper checks for a half-close.
    func waiting() -> [Probe] {
        entries.values.compactMap { entry in
            entry.busy || entry.closing ? nil : Probe(id: entry.id, socket: entry.socket)
        }
    }

    /// Decides which connections to close now. `halfClosed` holds the ids of probes whose client side was found
    /// closed with nothing left to read. The caller must shut the returned sockets down before unlocking: until
    /// `closed` is called for it, libmicrohttpd has not closed (and so not reused) a socket.
    mutating func sweep(at now: ContinuousClock.Instant, halfClosed: Set<UInt64>) -> [Closing] {
        var closing: [Closing] = []
        for key in Array(entries.keys) {
            guard var entry = entries[key], !entry.busy, !entry.closing else { continue }
            if now - entry.waitingSince >= requestTimeout {
                entry.closing = true
                closing.append(Closing(socket: entry.socket, reason: .requestTimedOut))
            } else if halfClosed.contains(entry.id) {
                entry.halfClosedSweeps += 1
                if entry.halfClosedSweeps >= Self.halfClosedSweepsToClose {
                    entry.closing = true
                    closing.append(Closing(socket: entry.socket, reason: .halfClosed))
                }
            } else {
                entry.halfClosedSweeps = 0
            }
            entries[key] = entry
        }
        return closing
    }
}
