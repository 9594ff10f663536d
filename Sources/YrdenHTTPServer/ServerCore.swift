import CMicroHTTPD
import Dispatch
import Logging
import Synchronization
import YrdenExecution

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
/// A daemon without threads of its own also names the loop that runs it and the descriptor that loop watches.
struct DaemonHandle: @unchecked Sendable {
    let raw: OpaquePointer
    var loop: (any HTTPEventLoop)? = nil
    var descriptor: Int32 = -1

    /// One run of a daemon without threads, on its loop: everything ready is done, and the answer says when
    /// libmicrohttpd needs to run again even if nothing becomes ready (a connection's timeout; `.zero` while
    /// connections still have work it did not get to in this run).
    func turn() -> Duration? {
        _ = MHD_run(raw)
        let milliseconds = yrden_mhd_next_run_ms(raw)
        return milliseconds < 0 ? nil : .milliseconds(milliseconds)
    }

    /// Stops the daemon: on its loop, after the loop stops running it, when it has one.
    func stop() {
        guard let loop else { return MHD_stop_daemon(raw) }
        let daemon = DaemonHandle(raw: raw)
        loop.stopDriving(descriptor) { MHD_stop_daemon(daemon.raw) }
    }
}

/// The state `HTTPServer` shares with libmicrohttpd's callbacks (it is their `cls`): the exchanges Swift currently
/// holds, the handler tasks, the requests that arrived before `run()`, and the shutdown sequence.
///
/// Lock discipline: this lock is never held while taking an exchange's lock or starting a handler, and
/// `MHD_stop_daemon` (which joins libmicrohttpd's threads, whose callbacks take this lock) is called without it.
final class ServerCore: Sendable {
    private enum Phase {
        /// Requests wait for `run()`.
        case waiting
        case serving
        case draining
        case stopped
    }

    private struct Locked {
        var phase = Phase.waiting
        var runClaimed = false
        var daemon: DaemonHandle?
        /// Every exchange handed to Swift and not yet completed by libmicrohttpd; shutdown walks it and waits
        /// for it to empty.
        var dispatched: [ObjectIdentifier: Exchange] = [:]
        /// The handler task of each dispatched exchange, to cancel when its client leaves.
        var handlerIDs: [ObjectIdentifier: UInt64] = [:]
        /// Requests that arrived before `run()`. Bounded all the same: a connection has at most one request with
        /// Swift, and the connection limit bounds connections.
        var parked: [IncomingRequest] = []
        var drainWaiter: CheckedContinuation<Void, Never>?
        var drainGeneration: UInt64 = 0
        /// `run()` waiting for shutdown to begin.
        var shutdownWaiter: CheckedContinuation<Void, Never>?

        mutating func takeDrainWaiterIfDrained() -> CheckedContinuation<Void, Never>? {
            dispatched.isEmpty ? drainWaiter.take() : nil
        }
    }

    /// Requests up to this size start their handler on libmicrohttpd's thread (see ``HandlerTasks``); larger ones
    /// start on the global executor.
    static let maxInlineBodyBytes = 64 << 10

    let maxBodyBytes: Int
    let logger: Logger
    /// The loop that runs libmicrohttpd when it has no threads of its own.
    let eventLoop: (any HTTPEventLoop)?
    /// What a resumed connection asks of that loop.
    let loopWaker: LoopWaker?
    /// Every open connection, and the timer that closes those held without a complete request.
    let connections: ConnectionSweeper
    /// Proxies whose `X-Forwarded-For` is believed (``ForwardedClient``).
    let trustedProxies: [PeerNetwork]
    let handlers = HandlerTasks()
    private let handler: HTTPHandler
    private let locked = Mutex(Locked())

    init(
        maxBodyBytes: Int,
        requestTimeout: Duration,
        eventLoop: (any HTTPEventLoop)? = nil,
        trustedProxies: [PeerNetwork] = [],
        logger: Logger,
        handler: @escaping HTTPHandler
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.trustedProxies = trustedProxies
        self.eventLoop = eventLoop
        self.loopWaker = eventLoop.map(LoopWaker.init)
        self.logger = logger
        self.handler = handler
        self.connections = ConnectionSweeper(requestTimeout: requestTimeout, logger: logger)
        connections.onClientLeft { [weak self] connection in self?.clientLeft(connection) }
    }

    func attach(_ daemon: DaemonHandle) {
        loopWaker?.attach(daemon.descriptor)
        locked.withLock { $0.daemon = daemon }
    }

    /// Starts serving, beginning with the requests that arrived before (unless shutdown has begun already, which
    /// answers them 503). Throws on a second `run()`.
    func startServing() throws {
        let parked = try locked.withLock { locked -> [IncomingRequest] in
            guard !locked.runClaimed else { throw HTTPServerError.alreadyRunning }
            locked.runClaimed = true
            guard case .waiting = locked.phase else { return [] }
            locked.phase = .serving
            defer { locked.parked = [] }
            return locked.parked
        }
        for request in parked { start(request) }
    }

    /// Returns once shutdown has begun (`beginShutdown()`).
    func waitForShutdown() async {
        await withCheckedContinuation { continuation in
            let begun = locked.withLock { locked -> Bool in
                guard case .serving = locked.phase else { return true }
                locked.shutdownWaiter = continuation
                return false
            }
            if begun { continuation.resume() }
        }
    }

    // MARK: libmicrohttpd side

    /// Hands a request to Swift; the exchange's connection is already suspended. Its handler starts here, on
    /// this thread; before `run()` the request waits, and once the server has stopped taking requests it is
    /// answered 503.
    func dispatch(_ request: IncomingRequest) {
        let phase = locked.withLock { locked -> Phase in
            switch locked.phase {
            case .waiting:
                locked.parked.append(request)
            case .serving:
                break
            case .draining, .stopped:
                return locked.phase
            }
            locked.dispatched[ObjectIdentifier(request.exchange)] = request.exchange
            return locked.phase
        }
        switch phase {
        case .serving where request.request.body.count <= Self.maxInlineBodyBytes:
            InlineRuns.allowed { start(request) }
        case .serving:
            start(request)  // parsing a large body must not hold up this thread's other connections
        case .waiting: break
        case .draining, .stopped: request.exchange.refuse()
        }
    }

    func completed(_ exchange: Exchange) {
        let waiter = locked.withLock { locked -> CheckedContinuation<Void, Never>? in
            locked.handlerIDs[ObjectIdentifier(exchange)] = nil
            guard locked.dispatched.removeValue(forKey: ObjectIdentifier(exchange)) != nil else { return nil }
            return locked.takeDrainWaiterIfDrained()
        }
        waiter?.resume()
    }

    // MARK: Swift side

    var isServing: Bool {
        locked.withLock { if case .serving = $0.phase { true } else { false } }
    }

    /// Stops taking work: every new request is answered 503, and every open stream is ended. Idempotent: only
    /// the first call does anything.
    ///
    /// The listen socket stays open until `stop()`, where libmicrohttpd closes it. `MHD_quiesce_daemon` is not
    /// used: in epoll mode it removes the listen socket from the epoll set on the caller's thread while the
    /// daemon's own thread may do the same, and the loser of that race aborts the process ("Failed to remove
    /// listen FD from epoll set"), which the unit suite hit about one run in four.
    func beginShutdown() {
        let (streams, waiter) = locked.withLock { locked -> ([Exchange], CheckedContinuation<Void, Never>?) in
            switch locked.phase {
            case .waiting, .serving: locked.phase = .draining
            case .draining, .stopped: return ([], nil)
            }
            return (Array(locked.dispatched.values), locked.shutdownWaiter.take())
        }
        waiter?.resume()
        if !streams.isEmpty {
            logger.debug("HTTP server ending open streams", metadata: ["yrden.http.exchanges": "\(streams.count)"])
        }
        for exchange in streams { exchange.endStream(serverStopping: true) }
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
        let (daemon, waiter) = locked.withLock { locked in
            locked.phase = .stopped
            defer { locked.daemon = nil }
            return (locked.daemon, locked.shutdownWaiter.take())
        }
        waiter?.resume()
        guard let daemon else { return false }
        connections.stop()
        daemon.stop()
        return true
    }

    // MARK: Handlers

    private func start(_ request: IncomingRequest) {
        let exchange = ObjectIdentifier(request.exchange)
        let id = handlers.start { [self] in await serve(request) }
        locked.withLock { locked in
            if locked.dispatched[exchange] != nil { locked.handlerIDs[exchange] = id }
        }
    }

    /// The client of a suspended connection left before its answer was done: its handler is cancelled (which
    /// cancels what it waits for upstream) and a stream is ended, instead of both waiting for an answer that
    /// nobody will read. A 2026-07-28 client cancels a call this way.
    private func clientLeft(_ connection: OpaquePointer) {
        let found = locked.withLock { locked -> (Exchange, UInt64?)? in
            guard let exchange = locked.dispatched.values.first(where: { $0.connection.raw == connection }) else {
                return nil
            }
            return (exchange, locked.handlerIDs[ObjectIdentifier(exchange)])
        }
        guard let (exchange, handlerID) = found else { return }
        logger.debug("HTTP client left before its answer; cancelling the request")
        if let handlerID { handlers.cancel(handlerID) }
        exchange.endStream()
    }

    /// One request: run the handler, hand its answer to the connection, then feed a streamed body or run an
    /// upgrade.
    private func serve(_ incoming: IncomingRequest) async {
        let response = await handler(incoming.request)
        let exchange = incoming.exchange
        guard exchange.deliver(response) else { return }
        if case .upgrade(let body) = response.body { return await upgrade(exchange, body) }
        guard case .stream(let body) = response.body else { return }
        // A stream answered while shutting down ends at once (shutdown's own pass may have run before delivery).
        if !isServing { exchange.endStream(serverStopping: true) }
        await withDiscardingTaskGroup { group in
            group.addTask {
                await body(HTTPBodyWriter(exchange: exchange))
                exchange.endStream()
            }
            // The client left or the server is stopping: cancel the writer instead of waiting for its next write.
            await exchange.waitUntilWritesClose()
            group.cancelAll()
        }
    }

    /// Runs an upgrade's closure with the socket once libmicrohttpd hands it over, and closes the socket after.
    /// The closure is cancelled when the server stops or the sweeper finds the client gone.
    private func upgrade(_ exchange: Exchange, _ body: @escaping @Sendable (UpgradedSocket) async -> Void) async {
        if !isServing { exchange.endStream(serverStopping: true) }
        guard let socket = await exchange.waitForUpgrade() else { return }
        await withDiscardingTaskGroup { group in
            group.addTask {
                await body(socket)
                socket.close()
            }
            // Writes close when the server stops, or when libmicrohttpd ends the exchange after the close.
            await exchange.waitUntilWritesClose()
            group.cancelAll()
        }
        socket.close()
    }
}
