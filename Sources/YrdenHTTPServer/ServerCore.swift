import CMicroHTTPD
import Dispatch
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request on its way from a libmicrohttpd thread to a handler task.
struct IncomingRequest: Sendable {
    let request: HTTPRequest
    let exchange: Exchange
}

/// A daemon pointer that may cross threads; libmicrohttpd's daemon API is thread-safe for the calls made here.
struct DaemonHandle: @unchecked Sendable {
    let raw: OpaquePointer
}

/// The state `HTTPServer` shares with libmicrohttpd's callbacks (it is their `cls`): the hand-off queue of
/// requests, the exchanges Swift currently holds, and the shutdown sequence.
///
/// Lock discipline: this lock is never held while taking an exchange's lock, and `MHD_stop_daemon` (which joins
/// libmicrohttpd's threads, whose callbacks take this lock) is called without it.
final class ServerCore: Sendable {
    private enum Phase {
        case serving
        case draining
        case stopped
    }

    private struct Locked {
        var phase = Phase.serving
        var runClaimed = false
        var daemon: DaemonHandle?
        /// Every exchange handed to Swift and not yet completed by libmicrohttpd; shutdown walks it and waits
        /// for it to empty.
        var dispatched: [ObjectIdentifier: Exchange] = [:]
        var drainWaiter: CheckedContinuation<Void, Never>?
        var drainGeneration: UInt64 = 0

        mutating func takeDrainWaiterIfDrained() -> CheckedContinuation<Void, Never>? {
            dispatched.isEmpty ? drainWaiter.take() : nil
        }
    }

    let maxBodyBytes: Int
    let logger: Logger
    /// Every open connection, and the timer that closes those held without a complete request.
    let connections: ConnectionSweeper
    /// Requests handed over by libmicrohttpd threads, consumed by `HTTPServer.run()`. Never full, so a callback
    /// never waits; bounded all the same, since a connection has at most one request with Swift and the connection
    /// limit bounds connections. Requests that arrive before `run()` wait here.
    let incoming: AsyncStream<IncomingRequest>
    private let continuation: AsyncStream<IncomingRequest>.Continuation
    private let locked = Mutex(Locked())

    init(maxBodyBytes: Int, requestTimeout: Duration, logger: Logger) {
        self.maxBodyBytes = maxBodyBytes
        self.logger = logger
        self.connections = ConnectionSweeper(requestTimeout: requestTimeout, logger: logger)
        (incoming, continuation) = AsyncStream.makeStream(of: IncomingRequest.self, bufferingPolicy: .unbounded)
    }

    func attach(_ daemon: DaemonHandle) {
        locked.withLock { $0.daemon = daemon }
    }

    /// Throws on a second `run()`: the request stream has one consumer.
    func claimRun() throws {
        try locked.withLock { locked in
            guard !locked.runClaimed else { throw HTTPServerError.alreadyRunning }
            locked.runClaimed = true
        }
    }

    // MARK: libmicrohttpd side

    /// Hands a request to Swift; the exchange's connection is already suspended. If the server has stopped
    /// taking requests, the exchange answers 503 instead.
    func dispatch(_ request: IncomingRequest) {
        let accepted = locked.withLock { locked in
            guard case .serving = locked.phase, case .enqueued = continuation.yield(request) else { return false }
            locked.dispatched[ObjectIdentifier(request.exchange)] = request.exchange
            return true
        }
        if !accepted { request.exchange.refuse() }
    }

    func completed(_ exchange: Exchange) {
        let waiter = locked.withLock { locked -> CheckedContinuation<Void, Never>? in
            guard locked.dispatched.removeValue(forKey: ObjectIdentifier(exchange)) != nil else { return nil }
            return locked.takeDrainWaiterIfDrained()
        }
        waiter?.resume()
    }

    // MARK: Swift side

    var isServing: Bool {
        locked.withLock { if case .serving = $0.phase { true } else { false } }
    }

    /// Answers 503 to requests that no handler took: a cancelled `run()` leaves its queue unread.
    func refuseUnstarted() {
        let exchanges = locked.withLock { Array($0.dispatched.values) }
        for exchange in exchanges { exchange.refuseUnlessTaken() }
    }

    /// Stops taking work: every new request is answered 503, and every open stream is ended. Idempotent: only
    /// the first call does anything.
    ///
    /// The listen socket stays open until `stop()`, where libmicrohttpd closes it. `MHD_quiesce_daemon` is not
    /// used: in epoll mode it removes the listen socket from the epoll set on the caller's thread while the
    /// daemon's own thread may do the same, and the loser of that race aborts the process ("Failed to remove
    /// listen FD from epoll set"), which the unit suite hit about one run in four.
    func beginShutdown() {
        let streams: [Exchange] = locked.withLock { locked in
            guard case .serving = locked.phase else { return [] }
            locked.phase = .draining
            continuation.finish()
            return Array(locked.dispatched.values)
        }
        if !streams.isEmpty {
            logger.debug("HTTP server ending open streams", metadata: ["yrden.http.exchanges": "\(streams.count)"])
        }
        for exchange in streams { exchange.endStream() }
    }

    /// Returns once libmicrohttpd has finished every exchange handed to Swift (handlers answered, answers sent,
    /// ended streams flushed), or after `seconds`. Works in a cancelled task too (a dispatch timer, not
    /// `Task.sleep`), so cancellation still gives handlers their grace period.
    func waitForDispatchedExchanges(seconds: Double) async {
        await withCheckedContinuation { continuation in
            let wait: UInt64? = locked.withLock { locked in
                if locked.dispatched.isEmpty { return nil }
                locked.drainGeneration += 1
                locked.drainWaiter = continuation
                return locked.drainGeneration
            }
            guard let wait else {
                continuation.resume()
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
                // Only this wait's waiter: an earlier wait's timer must not cut a later wait short.
                let waiter = locked.withLock { locked in
                    locked.drainGeneration == wait ? locked.drainWaiter.take() : nil
                }
                waiter?.resume()
            }
        }
    }

    /// Gives up on every exchange Swift still holds: pending requests are answered 503, streams end, and every
    /// suspended connection is resumed, which `MHD_stop_daemon` requires.
    func abortAll() {
        let exchanges = locked.withLock { Array($0.dispatched.values) }
        if !exchanges.isEmpty {
            logger.debug("HTTP server aborting exchanges", metadata: ["yrden.http.exchanges": "\(exchanges.count)"])
        }
        for exchange in exchanges { exchange.abort() }
    }

    /// Stops libmicrohttpd, which closes every connection and the listen socket. Call `abortAll()` first.
    /// Idempotent. Returns whether this call stopped the daemon.
    @discardableResult
    func stop() -> Bool {
        let daemon = locked.withLock { locked in
            locked.phase = .stopped
            continuation.finish()
            defer { locked.daemon = nil }
            return locked.daemon
        }
        guard let daemon else { return false }
        connections.stop()
        MHD_stop_daemon(daemon.raw)
        return true
    }
}
