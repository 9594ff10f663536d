#if canImport(Glibc)
import Glibc
#endif

/// Starts a detached OS thread for work that blocks in a system call (pipe reads, `waitpid`).
///
/// Blocking calls must never run on Swift's cooperative pool: with two cores, two blocked readers would stall
/// every task in the process. These threads only block, then hand results over without waiting on Swift work.
enum NativeThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    static func detach(_ body: @escaping @Sendable () -> Void) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, 256 * 1024)
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
            fatalError("pthread_create failed: \(result)")
        }
    }
}
