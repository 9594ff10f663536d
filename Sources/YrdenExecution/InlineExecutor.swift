#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A task executor that runs a task's next step on the thread that made it runnable, when that thread allows it,
/// and on the global concurrent executor otherwise.
///
/// A call through the gateway crosses threads the Swift runtime does not own: libmicrohttpd hands the request
/// over on one of its threads, and a stdio server's answer arrives on the process reactor's. Through the global
/// executor, each crossing wakes a pool thread, and on a quiet machine every wake-up costs more than the work it
/// carries. A request task that prefers this executor runs its short synchronous stretches where they became
/// runnable instead: the request up to the write to the server on libmicrohttpd's thread, the answer up to the
/// resumed connection on the reactor's.
///
/// Inline runs are opt-in and shallow: only inside ``InlineRuns/allowed(_:)``, only one job deep, and never on a
/// thread already running a job (whatever such a job makes runnable goes to the pool). A thread that did not opt
/// in, or that holds a lock the job might want, therefore never finds Swift work on its stack.
package final class InlineExecutor: TaskExecutor {
    package static let shared = InlineExecutor()

    private init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        if InlineRuns.claim() {
            job.runSynchronously(on: asUnownedTaskExecutor())
            InlineRuns.unclaim()
        } else {
            globalConcurrentExecutor.enqueue(job)
        }
    }
}

/// The per-thread permission ``InlineExecutor`` asks for.
package enum InlineRuns {
    private enum Mark: Int {
        case allowed = 1
        case running = 2

        var pointer: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: rawValue) }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left for inline runs")
        return key
    }()

    /// Runs `body`; a task preferring ``InlineExecutor`` that becomes runnable on this thread meanwhile runs here,
    /// before the call that made it runnable returns. The caller must hold no lock such a task could take. Inside
    /// a job that runs inline already, it changes nothing: jobs never nest.
    package static func allowed<Result>(_ body: () throws -> Result) rethrows -> Result {
        let previous = pthread_getspecific(key)
        guard previous != Mark.running.pointer else { return try body() }
        pthread_setspecific(key, Mark.allowed.pointer)
        defer { pthread_setspecific(key, previous) }
        return try body()
    }

    /// Takes this thread's permission for one job; false when it has none or a job runs here already.
    fileprivate static func claim() -> Bool {
        guard pthread_getspecific(key) == Mark.allowed.pointer else { return false }
        pthread_setspecific(key, Mark.running.pointer)
        return true
    }

    fileprivate static func unclaim() {
        pthread_setspecific(key, Mark.allowed.pointer)
    }
}
