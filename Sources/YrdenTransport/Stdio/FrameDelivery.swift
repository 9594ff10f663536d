import Dispatch
import Synchronization
import YrdenExecution

/// Hands one child's lines, log lines and end to its handler off the reactor thread, in order, with a bound.
///
/// Decoding a frame is the handler's work and may take long (a tool list of 1.6 MB takes a second in a debug
/// build); on the reactor thread it would hold up every other server's I/O. Each channel gets a serial queue of
/// its own on the shared dispatch pool, so one slow frame delays only its own server. A small frame with
/// nothing queued before it is handed over at once, on the calling thread: most answers are small, and the
/// hop to another thread would only add latency. Wherever a frame is handed over, inline runs are allowed, so
/// the request task it answers continues right there (``InlineExecutor``) instead of waking a pool thread.
/// When more than `maxPendingBytes` wait, the reader is told to pause (the full pipe then holds the child back)
/// and is resumed once the handler has caught up to half of that.
final class FrameDelivery: Sendable {
    private struct State {
        var pendingBytes = 0
        var resume: (@Sendable () -> Void)?
    }

    /// On the shared pool, which runs as many queues at once as there are cores; a serial queue of its own
    /// would get a thread of its own whenever it has work (libdispatch overcommits those).
    private let queue = DispatchQueue(label: "yrden.stdio.delivery", target: .global())
    private let state = Mutex(State())
    private let maxPendingBytes: Int
    private let maxInlineBytes: Int

    init(maxPendingBytes: Int, maxInlineBytes: Int) {
        self.maxPendingBytes = maxPendingBytes
        self.maxInlineBytes = maxInlineBytes
    }

    /// Runs or queues `work`, which accounts for `bytes`. Returns `false` when the reader should pause; then
    /// `resume` is called once enough has been handed over. Callers are one thread (the reactor's), so nothing
    /// can be queued between the check for an empty queue and the inline run.
    func enqueue(
        bytes: Int,
        resume: @escaping @Sendable () -> Void,
        _ work: @escaping @Sendable () -> Void
    ) -> Bool {
        if bytes <= maxInlineBytes, state.withLock({ $0.pendingBytes == 0 }) {
            InlineRuns.allowed(work)
            return true
        }
        let keepReading = state.withLock { state -> Bool in
            state.pendingBytes += bytes
            guard state.pendingBytes > maxPendingBytes else { return true }
            state.resume = resume
            return false
        }
        queue.async { [self] in
            InlineRuns.allowed(work)
            let resume = state.withLock { state -> (@Sendable () -> Void)? in
                state.pendingBytes -= bytes
                guard state.pendingBytes <= maxPendingBytes / 2 else { return nil }
                defer { state.resume = nil }
                return state.resume
            }
            resume?()
        }
        return keepReading
    }

    /// Queues `work` after everything queued before it, without a bound: for the end of the channel.
    func enqueue(_ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.pendingBytes += 1 }
        queue.async { [self] in
            work()
            state.withLock { $0.pendingBytes -= 1 }
        }
    }
}
