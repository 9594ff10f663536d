import CYrdenProcess

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a detached OS thread for work that blocks in a system call (`epoll_wait`, a read of stdin or of
/// inotify).
///
/// Blocking calls must never run on Swift's cooperative pool: with two cores, two blocked readers would stall
/// every task in the process. These threads only block, then hand results over without waiting on Swift work.
/// Plain pthreads, not Foundation's `Thread`: that one type was all the gateway used of Foundation's full
/// module, which loads its own libraries and ICU's (megabytes of resident memory) into every process.
package enum DetachedThread {
    private final class Box {
        let name: String
        let body: () -> Void

        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new thread called `name` (what `top -H` and a debugger show; Linux keeps its first
    /// 15 bytes). Throws the `pthread_create` error number when the process or the system is at its limit.
    package static func start(
        name: String,
        stackBytes: Int = 256 * 1024,
        _ body: @escaping @Sendable () -> Void
    ) throws(ThreadStartError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, stackBytes)
        let context = Unmanaged.passRetained(Box(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread,
            &attributes,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                yrden_name_this_thread(box.name)
                box.body()
                return nil
            },
            context
        )
        if result != 0 {
            Unmanaged<Box>.fromOpaque(context).release()
            throw ThreadStartError(code: result)
        }
    }
}

/// Why a thread could not be started: the error number `pthread_create` returned.
package struct ThreadStartError: Error, CustomStringConvertible {
    package let code: Int32

    package var description: String { "cannot start a thread: \(String(cString: strerror(code)))" }
}
