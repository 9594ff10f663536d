/// The process's one event loop (the thread that runs every stdio child's I/O), offered to other event sources
/// that do better on it than on threads of their own: the gateway's HTTP server, whose answers from stdio
/// upstreams are then produced and sent on the thread that read them.
package struct ProcessEventLoop: Sendable {
    private let reactor: ProcessReactor

    /// The process's loop, started on first use (which makes the process a child subreaper).
    package static func shared() throws(UpstreamError) -> ProcessEventLoop {
        ProcessEventLoop(reactor: try ProcessReactor.running())
    }

    /// Calls `turn` on the loop's thread whenever `descriptor` is readable and once the delay it last returned
    /// has passed (`nil`: only when readable).
    package func drive(_ descriptor: Int32, _ turn: @escaping @Sendable () -> Duration?) throws(UpstreamError) {
        try reactor.drive(descriptor, turn)
    }

    /// Has the drive of `descriptor` run soon (every drive for a negative one), from any thread.
    package func wake(_ descriptor: Int32) {
        reactor.wakeDriver(descriptor)
    }

    /// Calls `record` on the loop's thread about every `interval` with how late the loop ran a tick it had set:
    /// the time something else held the thread. `record` must be quick and allocate nothing; the token ends it.
    package func measureLag(every interval: Duration, _ record: @escaping @Sendable (Duration) -> Void) -> UInt64 {
        reactor.measureLag(every: interval, record)
    }

    /// Ends the ticks that ``measureLag(every:_:)`` started.
    package func stopMeasuringLag(_ token: UInt64) {
        reactor.stopMeasuringLag(token)
    }

    /// Ends the drive of `descriptor`, then runs `last` on the loop's thread; returns once it has run.
    package func stopDriving(_ descriptor: Int32, then last: @escaping @Sendable () -> Void) {
        reactor.stopDriving(descriptor, then: last)
    }
}
