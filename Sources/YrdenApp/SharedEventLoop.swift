import YrdenHTTPServer
import YrdenTransport

/// The gateway's listeners served on the stdio reactor's thread instead of libmicrohttpd's own: a call to a stdio
/// upstream is then read, forwarded, answered and sent by one thread, without a wake-up between threads.
struct SharedEventLoop: HTTPEventLoop {
    let loop: ProcessEventLoop

    /// The process's loop, started on first use.
    static func process() throws -> SharedEventLoop {
        SharedEventLoop(loop: try ProcessEventLoop.shared())
    }

    func drive(_ descriptor: Int32, _ turn: @escaping @Sendable () -> Duration?) throws {
        try loop.drive(descriptor, turn)
    }

    func wake(_ descriptor: Int32) {
        loop.wake(descriptor)
    }

    func stopDriving(_ descriptor: Int32, then last: @escaping @Sendable () -> Void) {
        loop.stopDriving(descriptor, then: last)
    }
}
