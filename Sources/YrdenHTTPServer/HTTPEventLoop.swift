/// A thread with an epoll loop that libmicrohttpd can share instead of running threads of its own.
///
/// When a server is given one, its connections are read, parsed and written on that loop's thread, so an answer
/// produced there (a stdio upstream's reply, read by the same loop) is sent without waking another thread: each
/// call costs one wake-up instead of three.
package protocol HTTPEventLoop: Sendable {
    /// Calls `turn` on the loop's thread whenever `descriptor` is readable, and when the delay `turn` last
    /// returned has passed (`nil`: only when readable; `.zero`: as soon as the loop has seen to its other work).
    func drive(_ descriptor: Int32, _ turn: @escaping @Sendable () -> Duration?) throws
    /// Asks for a turn of the drive of `descriptor` soon (of every drive for a negative one), from any thread:
    /// libmicrohttpd without threads of its own does not notice a resumed connection by itself.
    func wake(_ descriptor: Int32)
    /// Ends the drive of `descriptor`, then runs `last` on the loop's thread and returns once it has run.
    func stopDriving(_ descriptor: Int32, then last: @escaping @Sendable () -> Void)
}
