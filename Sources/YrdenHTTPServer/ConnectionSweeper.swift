import Dispatch
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Applies `OpenConnections`' rules to the real sockets: libmicrohttpd's callbacks report connections opening,
/// closing and carrying requests, and a timer sweeps several times per `requestTimeout` (at most a second apart).
///
/// A connection is closed by `shutdown(2)` on its socket, never `close(2)`: libmicrohttpd still owns the
/// descriptor, sees the end on its next read and closes the connection itself, releasing everything it holds.
/// The shutdown happens under the lock that `closed` also takes, and libmicrohttpd reports a connection closed
/// before it closes the descriptor, so the socket shut down is always the connection's own, never a reused one.
final class ConnectionSweeper: Sendable {
    private let connections: Mutex<OpenConnections<UInt>>
    private let stopped = Mutex(false)
    private let queue = DispatchQueue(label: "yrden.http.connection-sweep")
    private let interval: DispatchTimeInterval
    private let logger: Logger
    /// Told, once per request, that the client of a busy (suspended) connection has left.
    private let clientLeftHandler = Mutex<(@Sendable (OpaquePointer) -> Void)?>(nil)

    init(requestTimeout: Duration, logger: Logger) {
        self.connections = Mutex(OpenConnections(requestTimeout: requestTimeout))
        self.interval = .nanoseconds(Int(Self.interval(for: requestTimeout) / .nanoseconds(1)))
        self.logger = logger
    }

    /// Sets who hears that a busy connection's client left (its server, made after this sweeper).
    func onClientLeft(_ handler: @escaping @Sendable (OpaquePointer) -> Void) {
        clientLeftHandler.withLock { $0 = handler }
    }

    /// How often the sweep runs: often enough that a deadline is kept within a quarter of itself.
    static func interval(for requestTimeout: Duration) -> Duration {
        max(.milliseconds(50), min(.seconds(1), requestTimeout / 4))
    }

    // MARK: libmicrohttpd side

    func opened(_ connection: OpaquePointer, socket: Int32) {
        let now = ContinuousClock.now
        connections.withLock { $0.opened(Self.key(connection), socket: socket, at: now) }
    }

    func closed(_ connection: OpaquePointer) {
        connections.withLock { $0.closed(Self.key(connection)) }
    }

    func requestHandedOver(_ connection: OpaquePointer) {
        connections.withLock { $0.requestHandedOver(Self.key(connection)) }
    }

    func requestFinished(_ connection: OpaquePointer) {
        let now = ContinuousClock.now
        connections.withLock { $0.requestFinished(Self.key(connection), at: now) }
    }

    // MARK: The timer

    /// Sweeps every `interval` until `stop()`, on a queue of its own: a busy Swift task pool cannot delay it.
    func start() {
        queue.asyncAfter(deadline: .now() + interval) { [self] in
            guard !stopped.withLock({ $0 }) else { return }
            sweep()
            start()
        }
    }

    /// No sweep starts after this returns. Idempotent.
    func stop() {
        stopped.withLock { $0 = true }
    }

    /// One pass: probe waiting connections for a half-close (outside the lock: one syscall each), then close what
    /// the rules name (under it); probe busy ones for a client that left, and report those.
    func sweep() {
        let busy = connections.withLock { $0.busy() }
        for probe in busy where Self.peerHasClosed(probe.socket) {
            // Reported once, and only while the connection is open and busy; the server compares the pointer with
            // its exchanges' connections and never dereferences it.
            guard connections.withLock({ $0.clientLeft(probe.key) }),
                let connection = OpaquePointer(bitPattern: probe.key)
            else { continue }
            clientLeftHandler.withLock { $0 }?(connection)
        }
        let probes = connections.withLock { $0.waiting() }
        let halfClosed = Set(probes.lazy.filter { Self.peerHasClosed($0.socket) }.map(\.id))
        let now = ContinuousClock.now
        let closing = connections.withLock { connections in
            let closing = connections.sweep(at: now, halfClosed: halfClosed)
            for item in closing { _ = shutdown(item.socket, Int32(SHUT_RDWR)) }
            return closing
        }
        if !closing.isEmpty {
            let timedOut = closing.filter { $0.reason == .requestTimedOut }.count
            logger.debug(
                "HTTP server closed connections without a complete request",
                metadata: [
                    "yrden.http.timed_out": "\(timedOut)",
                    "yrden.http.half_closed": "\(closing.count - timedOut)",
                ]
            )
        }
    }

    /// Whether the client has closed its side and nothing is left to read: `recv` peeks at end of stream. Harmless
    /// on a descriptor that was closed and reused meanwhile; `sweep` only acts on connections still open.
    private static func peerHasClosed(_ socket: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) == 0
    }

    private static func key(_ connection: OpaquePointer) -> UInt {
        UInt(bitPattern: connection)
    }
}
