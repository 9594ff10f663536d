import Dispatch
import Synchronization

/// Hands one child's lines, log lines and end to its handler off the reactor thread, in order, with a bound.
///
/// Decoding a frame is the handler's work and may take long (a tool list of 1.6 MB takes a second in a debug
/// build); on the reactor thread it would hold up every other server's I/O. Each channel gets a serial queue of
/// its own on the shared dispatch pool, so one slow frame delays only its own server. When more than
/// `maxPendingBytes` wait, the reader is told to pause (the full pipe then holds the child back) and is resumed
/// once the handler has caught up to half of that.
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

    init(maxPendingBytes: Int) {
        self.maxPendingBytes = maxPendingBytes
    }

    /// Queues `work`, which accounts for `bytes`. Returns `false` when the reader should pause; then `resume`
    /// is called once enough has been handed over.
    func enqueue(
        bytes: Int,
        resume: @escaping @Sendable () -> Void,
        _ work: @escaping @Sendable () -> Void
    ) -> Bool {
        let keepReading = state.withLock { state -> Bool in
            state.pendingBytes += bytes
            guard state.pendingBytes > maxPendingBytes else { return true }
            state.resume = resume
            return false
        }
        queue.async { [self] in
            work()
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
        queue.async(execute: work)
    }
}
