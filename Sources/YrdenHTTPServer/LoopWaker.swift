import Synchronization

/// Asks a server's loop to run its daemon, for a connection resumed while libmicrohttpd has no threads of its
/// own: only that daemon's drive, not every listener sharing the loop, each of whose runs costs a system call.
final class LoopWaker: Sendable {
    private let loop: any HTTPEventLoop
    /// The daemon's epoll descriptor; negative until the daemon has started (every drive is woken meanwhile).
    private let descriptor = Atomic<Int32>(-1)

    init(loop: any HTTPEventLoop) {
        self.loop = loop
    }

    func attach(_ descriptor: Int32) {
        self.descriptor.store(descriptor, ordering: .releasing)
    }

    func wake() {
        loop.wake(descriptor.load(ordering: .acquiring))
    }
}
