import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// Kept-alive HTTP/1.1 connections to one upstream origin, for the POSTs of Streamable HTTP channels.
///
/// At most ``maxConnections`` open; past them a request waits in a queue of at most ``maxWaiters``, for no
/// longer than its own deadline, and past that it is refused at once. A connection idle for
/// ``idleTimeout`` is closed, before the usual server's own keep-alive timeout (uvicorn's is 5 s) would close
/// it under a request on its way. Connections live on the event loops of the shared HTTP client: no threads
/// of their own, and no more hops per call than AsyncHTTPClient made.
final class UpstreamHTTPPool: Sendable {
    static let maxConnections = 64
    static let maxWaiters = 1024
    static let idleTimeout: TimeAmount = .seconds(4)
    static let connectTimeout: TimeAmount = .seconds(10)

    private typealias Book = PoolBook<PooledConnection, PoolGrant>

    private struct State {
        var book = Book(maxConnections: UpstreamHTTPPool.maxConnections, maxWaiters: UpstreamHTTPPool.maxWaiters)
        var nextWaiter: UInt64 = 0
        var sweeping = false
    }

    let origin: UpstreamOrigin
    private let group: any EventLoopGroup
    private let tls: NIOSSLContext?
    private let state = Mutex(State())

    init(origin: UpstreamOrigin, group: any EventLoopGroup, tls: NIOSSLContext?) {
        self.origin = origin
        self.group = group
        self.tls = tls
    }

    /// A connection for one exchange: an idle one, a new one, or one given back while this waited.
    func lease(deadline: NIODeadline) async throws -> PooledConnection {
        var grant: PoolGrant?
        let (lease, id) = state.withLock { state -> (Book.Lease, UInt64) in
            state.nextWaiter += 1
            let id = state.nextWaiter
            return (
                state.book.lease(
                    id: id,
                    {
                        let waiter = PoolGrant()
                        grant = waiter
                        return waiter
                    }()
                ), id
            )
        }
        switch lease {
        case .reuse(let connection):
            return connection
        case .open:
            return try await connect(deadline: deadline)
        case .refuse:
            throw UpstreamError(
                .network,
                "\(Self.maxConnections) connections to \(origin.hostHeader) are busy and \(Self.maxWaiters) requests "
                    + "wait for one already"
            )
        case .wait:
            guard let grant else { preconditionFailure("a queued lease has its grant") }
            let timer = group.next().scheduleTask(deadline: deadline) {
                if self.state.withLock({ $0.book.removeWaiter(id) }) != nil {
                    grant.complete(.failure(UpstreamError(.timeout, "no connection to the server was free in time")))
                }
            }
            defer { timer.cancel() }
            let granted = try await withTaskCancellationHandler {
                try await grant.value()
            } onCancel: {
                if self.state.withLock({ $0.book.removeWaiter(id) }) != nil {
                    grant.complete(.failure(CancellationError()))
                }
            }
            switch granted {
            case .connection(let connection): return connection
            case .openOne: return try await connect(deadline: deadline)
            }
        }
    }

    /// An exchange ended on `connection`: it goes to the next waiter, idles, or (not reusable) frees its place.
    func release(_ connection: PooledConnection, reusable: Bool) {
        let (handoff, sweep) = state.withLock { state in
            let handoff = state.book.release(connection, reusable: reusable, now: NIODeadline.now().uptimeNanoseconds)
            let sweep = !state.sweeping && !state.book.idle.isEmpty
            if sweep { state.sweeping = true }
            return (handoff, sweep)
        }
        hand(handoff, connection)
        if sweep { scheduleSweep(on: connection.channel.eventLoop) }
    }

    /// An idle connection was closed by the server: forgotten.
    func closedIdle(_ connection: PooledConnection) {
        _ = state.withLock { $0.book.closedWhileIdle(connection) }
    }

    private func hand(_ handoff: Book.Handoff, _ connection: PooledConnection?) {
        switch handoff {
        case .reuse(let waiter):
            guard let connection else { preconditionFailure("only a connection given back is reused") }
            waiter.complete(.success(.connection(connection)))
        case .open(let waiter):
            waiter.complete(.success(.openOne))
        case .none:
            break
        }
    }

    /// Closes connections idle past ``idleTimeout``, every second while any idles.
    private func scheduleSweep(on loop: any EventLoop) {
        loop.scheduleTask(in: .seconds(1)) {
            let cutoff = NIODeadline.now() - Self.idleTimeout
            let (expired, again) = self.state.withLock { state in
                let expired = state.book.expired(before: cutoff.uptimeNanoseconds)
                state.sweeping = !state.book.idle.isEmpty
                return (expired, state.sweeping)
            }
            for connection in expired { connection.channel.close(promise: nil) }
            if again { self.scheduleSweep(on: loop) }
        }
    }

    /// Opens a connection in a place counted for it; the place is given up (to a waiter, if any) on failure.
    private func connect(deadline: NIODeadline) async throws -> PooledConnection {
        let tls = tls
        let origin = origin
        let timeout = min(Self.connectTimeout, max(deadline - .now(), .milliseconds(1)))
        do {
            return try await ClientBootstrap(group: group)
                .connectTimeout(timeout)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connect(host: origin.host, port: origin.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if origin.secure {
                            guard let tls else { throw UpstreamError(.network, "TLS is not set up for https://") }
                            let handler = try NIOSSLClientHandler(
                                context: tls,
                                serverHostname: origin.hostIsAddress ? nil : origin.host
                            )
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        let reader = ResponseReader(pool: self)
                        try channel.pipeline.syncOperations.addHandler(reader)
                        let connection = PooledConnection(channel: channel, reader: reader)
                        reader.connection = connection
                        return connection
                    }
                }
        } catch {
            hand(state.withLock { $0.book.giveUpPlace() }, nil)
            throw UpstreamError(.network, "the server cannot be reached: \(error)")
        }
    }
}

/// What a request queued for a connection is handed: a connection given back, or a place to open one. Set once,
/// by whoever takes the request out of the queue (a release, its deadline, its cancellation).
final class PoolGrant: Sendable {
    enum Outcome: Sendable {
        case connection(PooledConnection)
        case openOne
    }

    private let state = Mutex<(waiter: CheckedContinuation<Outcome, any Error>?, result: Result<Outcome, any Error>?)>(
        (nil, nil)
    )

    func complete(_ result: Result<Outcome, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, any Error>? in
            guard let waiter = state.waiter else {
                state.result = result
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(with: result)
    }

    func value() async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<Outcome, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
