import Synchronization
import YrdenEngine

#if canImport(Glibc)
import Glibc
#endif

/// The process's allocator settings, and what the engine's ``FreedMemory`` does: hand freed heap pages back.
///
/// glibc keeps freed heap pages in its arenas, so a process that once parsed a 16 MB batch or held large
/// sessions keeps that resident size long after. After such work the gateway asks glibc to trim its arenas.
/// Requests are coalesced: one trim runs shortly after the first request, by when the work that asked (an
/// answer being sent, sessions being ended) has released its buffers, and never more than one at a time.
/// Both are process-wide, hence here in the composition root and not in the engine.
enum GlibcHeap {
    private static let installed = Atomic<Bool>(false)
    private static let pending = Atomic<Bool>(false)
    /// Time for the caller to finish releasing what it held before the trim runs.
    static let settleTime: Duration = .milliseconds(200)

    /// Tunes the allocator and makes ``FreedMemory/release()`` trim; once per process, whoever calls first.
    static func install() {
        guard installed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        returnLargeBlocksPromptly()
        FreedMemory.install { trimSoon() }
    }

    /// Asks for a trim soon; a no-op when one is already scheduled.
    static func trimSoon() {
        guard pending.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        // Detached on purpose: the trim runs after the caller is done with its buffers, never inside its work.
        Task.detached(priority: .background) {
            try? await Task.sleep(for: settleTime)
            pending.store(false, ordering: .releasing)
            trimNow()
        }
    }

    /// Makes glibc give large blocks back when they are freed, for the life of the process.
    ///
    /// By default glibc raises its mmap threshold to the largest block freed so far (up to 32 MiB) and its
    /// trim threshold to twice that, so after one 10 MiB request body every later one is carved from a thread
    /// arena whose top is never trimmed: tens of megabytes stay resident for good. Fixed thresholds turn
    /// that adaptation off: blocks of 256 KiB and more are mapped and unmapped on their own, and an arena
    /// top larger than 1 MiB is returned.
    static func returnLargeBlocksPromptly() {
        guard let mallopt = glibcFunction("mallopt", as: (@convention(c) (Int32, Int32) -> Int32).self) else {
            return
        }
        _ = mallopt(mmapThresholdOption, 256 * 1024)
        _ = mallopt(trimThresholdOption, 1024 * 1024)
    }

    /// glibc's `M_MMAP_THRESHOLD` and `M_TRIM_THRESHOLD` from `<malloc.h>`.
    private static let mmapThresholdOption: Int32 = -3
    private static let trimThresholdOption: Int32 = -1

    /// Trims at once, on the calling thread.
    static func trimNow() {
        _ = mallocTrim?(0)
    }

    /// glibc's `malloc_trim(size_t pad)`; `nil` on a C library without it.
    private static let mallocTrim = glibcFunction("malloc_trim", as: (@convention(c) (Int) -> Int32).self)

    /// A function of the C library looked up at run time, because Swift's Glibc module does not export
    /// `<malloc.h>`; `nil` where the C library has no such function.
    private static func glibcFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
        #else
        return nil
        #endif
    }
}
