import Synchronization

/// The spans waiting for the exporter: at most `limit`; past it a span is dropped and counted.
///
/// Spans are added on the event loop (one short locked append) and taken by the exporter in batches; the
/// exporter waits for a full batch or its interval, whichever comes first (``waitForBatch()``).
package final class SpanQueue: Sendable {
    package let limit: Int
    package let batchSize: Int
    private let state: Mutex<State>

    private struct State: ~Copyable {
        var spans: [SpanRecord] = []
        var droppedQueueFull: UInt64 = 0
        var waiter: CheckedContinuation<Void, Never>?
        /// The exporter is stopping: every wait from now on returns at once.
        var woken = false
    }

    package init(limit: Int = 2_048, batchSize: Int = 512) {
        self.limit = limit
        self.batchSize = batchSize
        state = Mutex(State())
    }

    /// Adds a finished span; dropped and counted when `limit` spans already wait.
    package func add(_ span: SpanRecord) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard state.spans.count < limit else {
                state.droppedQueueFull &+= 1
                return nil
            }
            state.spans.append(span)
            guard state.spans.count >= batchSize, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Up to `batchSize` of the oldest spans, removed from the queue.
    /// When at most a batch waits (the usual case) the queue's array itself is taken and a fresh one put in
    /// its place, so the lock the event loop's ``add(_:)`` waits on never copies or shifts spans.
    package func take() -> [SpanRecord] {
        var fresh: [SpanRecord] = []
        fresh.reserveCapacity(batchSize)  // outside the lock
        return state.withLock { state in
            guard !state.spans.isEmpty else { return [] }
            guard state.spans.count > batchSize else {
                swap(&fresh, &state.spans)
                return fresh
            }
            let batch = Array(state.spans.prefix(batchSize))
            state.spans.removeFirst(batchSize)
            return batch
        }
    }

    package var count: Int { state.withLock { $0.spans.count } }

    /// Spans dropped because the queue was full, since the start.
    package var droppedQueueFull: UInt64 { state.withLock { $0.droppedQueueFull } }

    /// Ends the exporter's wait now and every later one at once (it is stopping and sends what is left).
    package func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.woken = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns when a full batch waits, or at once when one already does, or when the task is cancelled.
    /// One waiter at a time (the exporter).
    package func waitForBatch() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.spans.count >= batchSize || state.woken || Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
