#if canImport(Glibc)
import Glibc
#endif

/// Starts a detached OS thread for work that blocks in a system call (`epoll_wait`).
///
/// Blocking calls must never run on Swift's cooperative pool: with two cores, two blocked readers would stall
/// every task in the process. These threads only block, then hand results over without waiting on Swift work.
enum NativeThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new thread. A thread that cannot be created (the process or the system is at its
    /// limit) is a failure of whatever needed it, never of the whole process: it throws.
    static func detach(stackBytes: Int = 256 * 1024, _ body: @escaping @Sendable () -> Void) throws(UpstreamError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, stackBytes)
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread,
            &attributes,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                box.body()
                return nil
            },
            context
        )
        if result != 0 {
            Unmanaged<Box>.fromOpaque(context).release()
            throw UpstreamError(.process, "cannot start a thread: \(String(cString: strerror(result)))")
        }
    }
}
