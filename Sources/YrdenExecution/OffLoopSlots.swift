import Synchronization

/// Runs heavy pieces of work (a tool search over a large index, an admin listing of a whole catalog) off the
/// event loop, a few at a time, with a bounded line, each waiting a bounded time; the rest is refused at once.
///
/// A request task runs on the loop's thread that serves every client and stdio child, and a plain `async`
/// function runs on its caller's executor, so work that takes tens of milliseconds must be sent elsewhere. Here
/// it runs on the global executor, at most `running` at once (a burst cannot take every core from the requests
/// it would delay), with at most `waiting` more in line in arrival order, each for at most `patience`. The
/// caller turns a ``Refusal`` into its own answer (a busy JSON-RPC error, a 503 with `Retry-After`).
package final class OffLoopSlots: Sendable {
    /// Why a piece of work did not get a turn.
    package enum Refusal: Error, Sendable, Hashable {
        /// `waiting` pieces were in line already.
        case lineFull(waiting: Int)
        /// It waited `limit` without its turn coming.
        case waitedTooLong(limit: Duration)
        /// Its task was cancelled before its turn.
        case cancelled
    }

    /// Sleeps for a duration (the caller's clock: the gateway's injected one, a test's manual one); throws when
    /// its task is cancelled.
    package typealias Sleep = @Sendable (Duration) async throws -> Void

    /// The process's monotonic clock.
    package static let realTime: Sleep = { try await Task.sleep(for: $0) }

    private struct Waiter {
        var ticket: UInt64
        var turn: CheckedContinuation<Refusal?, Never>
        var expiry: Task<Void, Never>?
    }

    private struct State {
        var running = 0
        var line: [Waiter] = []
        var lastTicket: UInt64 = 0
    }

    package let running: Int
    package let waiting: Int
    package let patience: Duration
    private let state = Mutex(State())

    package init(running: Int, waiting: Int, patience: Duration) {
        precondition(running > 0 && waiting >= 0)
        self.running = running
        self.waiting = waiting
        self.patience = patience
    }

    /// Pieces in line now, for tests.
    package var inLine: Int { state.withLock { $0.line.count } }

    /// `work`'s result, made on the global executor once a slot is free (waiting at most ``patience`` on `sleep`).
    package func run<Result: Sendable>(
        waitingOn sleep: @escaping Sleep = OffLoopSlots.realTime,
        _ work: @escaping @Sendable () async -> Result
    ) async throws(Refusal) -> Result {
        try await enter(waitingOn: sleep)
        defer { leave() }
        return await Self.offLoop(work)
    }

    /// `work` in a child task that prefers the global executor. Neither a `@concurrent` function nor
    /// `withTaskExecutorPreference` around a plain closure is enough: the first runs on the task's preferred
    /// executor, which for a request task is the one that runs it on the loop's thread (`InlineExecutor`), and
    /// the second's body, nonisolated and nonsending, stays on the thread it was entered on.
    private static func offLoop<Result: Sendable>(_ work: @escaping @Sendable () async -> Result) async -> Result {
        await withTaskGroup(of: Result.self) { group in
            group.addTask(executorPreference: globalConcurrentExecutor) { await work() }
            return await group.next()!
        }
    }

    /// Waits for a slot (in arrival order, at most ``patience`` on `sleep`); the caller must ``leave()`` once done.
    package func enter(waitingOn sleep: @escaping Sleep = OffLoopSlots.realTime) async throws(Refusal) {
        let ticket = state.withLock { state -> UInt64 in
            state.lastTicket += 1
            return state.lastTicket
        }
        let refusal = await withTaskCancellationHandler {
            await withCheckedContinuation { (turn: CheckedContinuation<Refusal?, Never>) in
                let queued = state.withLock { state -> Bool in
                    if Task.isCancelled {
                        turn.resume(returning: .cancelled)
                        return false
                    }
                    if state.running < running, state.line.isEmpty {
                        state.running += 1
                        turn.resume(returning: nil)
                        return false
                    }
                    guard state.line.count < waiting else {
                        turn.resume(returning: .lineFull(waiting: state.line.count))
                        return false
                    }
                    state.line.append(Waiter(ticket: ticket, turn: turn))
                    return true
                }
                guard queued else { return }
                // Unstructured: the patience runs beside the waiting task, which is suspended; cancelled once the
                // waiter leaves the line.
                let expiry = Task { [patience] in
                    guard (try? await sleep(patience)) != nil, !Task.isCancelled else { return }
                    self.refuse(ticket, .waitedTooLong(limit: patience))
                }
                let served = state.withLock { state -> Bool in
                    guard let index = state.line.firstIndex(where: { $0.ticket == ticket }) else { return true }
                    state.line[index].expiry = expiry
                    return false
                }
                if served { expiry.cancel() }
            }
        } onCancel: {
            refuse(ticket, .cancelled)
        }
        if let refusal { throw refusal }
    }

    /// Hands the slot to the first in line, or frees it.
    package func leave() {
        let next = state.withLock { state -> Waiter? in
            guard !state.line.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.line.removeFirst()
        }
        next?.expiry?.cancel()
        next?.turn.resume(returning: nil)
    }

    /// Takes waiter `ticket` out of the line, refused; nothing when it is no longer there (it had its turn).
    private func refuse(_ ticket: UInt64, _ refusal: Refusal) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.line.firstIndex(where: { $0.ticket == ticket }) else { return nil }
            return state.line.remove(at: index)
        }
        waiter?.expiry?.cancel()
        waiter?.turn.resume(returning: refusal)
    }
}
