import Synchronization

/// Runs the admin API's reads whose cost grows with the catalog (a listing of 20,000 tools takes tens of ms to
/// build and serialize) off the event loop, a few at a time.
///
/// A handler task runs on the loop thread that serves every client and stdio child, and a plain `async`
/// function runs on its caller's executor. Here the work runs in a child task on the global executor, at most `running` at once (so a burst of listings cannot take every core from the
/// requests it would delay), with at most `waiting` more in line, each for at most `patience`; a read that
/// finds the line full, or waits past its patience, is refused, and the API answers 503 with `Retry-After`,
/// as a gateway at its in-flight limit does.
final class HeavyReadSlots: Sendable {
    private struct Waiter {
        let id: UInt64
        let turn: CheckedContinuation<Bool, Never>
        var expiry: Task<Void, Never>?
    }

    private struct State {
        var free: Int
        var line: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>
    private let waiting: Int
    private let patience: Duration

    init(running: Int = 2, waiting: Int = 32, patience: Duration = .seconds(10)) {
        precondition(running > 0 && waiting >= 0)
        state = Mutex(State(free: running))
        self.waiting = waiting
        self.patience = patience
    }

    /// `work`'s result, made on the global executor once a slot is free; `nil` when refused (line full,
    /// patience over, or the request's task cancelled while in line).
    func run<Result: Sendable>(_ work: @escaping @Sendable () async -> Result) async -> Result? {
        guard await acquire() else { return nil }
        defer { release() }
        return await Self.offLoop(work)
    }

    /// Reads in line now, for tests.
    var inLine: Int { state.withLock { $0.line.count } }

    /// `work` in a child task that prefers the global executor. Not a `@concurrent` function alone: that runs
    /// on the task's preferred executor when it has one, and a request task prefers the one that runs it on the
    /// loop's thread (`InlineExecutor`, which falls back to the pool only when the loop is busy with a job).
    private static func offLoop<Result: Sendable>(_ work: @escaping @Sendable () async -> Result) async -> Result {
        await withTaskGroup(of: Result.self) { group in
            group.addTask(executorPreference: globalConcurrentExecutor) { await work() }
            return await group.next()!
        }
    }

    private func acquire() async -> Bool {
        let id: UInt64? = state.withLock { state in
            if state.free > 0 {
                state.free -= 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (turn: CheckedContinuation<Bool, Never>) in
                let queued = state.withLock { state -> Bool in
                    guard state.line.count < waiting, !Task.isCancelled else { return false }
                    state.line.append(Waiter(id: id, turn: turn))
                    return true
                }
                guard queued else { return turn.resume(returning: false) }
                // Unstructured: the patience runs beside the waiting task, which is suspended; cancelled once
                // the waiter leaves the line.
                let patience = self.patience
                let expiry = Task { [weak self] in
                    try? await Task.sleep(for: patience)
                    if !Task.isCancelled { self?.leave(id) }
                }
                let stillWaiting = state.withLock { state -> Bool in
                    guard let index = state.line.firstIndex(where: { $0.id == id }) else { return false }
                    state.line[index].expiry = expiry
                    return true
                }
                if !stillWaiting { expiry.cancel() }
            }
        } onCancel: {
            leave(id)
        }
    }

    /// Takes waiter `id` out of the line, refused; nothing when it is no longer there (it had its turn).
    private func leave(_ id: UInt64) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.line.firstIndex(where: { $0.id == id }) else { return nil }
            return state.line.remove(at: index)
        }
        waiter?.expiry?.cancel()
        waiter?.turn.resume(returning: false)
    }

    /// Hands the slot to the first in line, or frees it.
    private func release() {
        let next = state.withLock { state -> Waiter? in
            guard !state.line.isEmpty else {
                state.free += 1
                return nil
            }
            return state.line.removeFirst()
        }
        next?.expiry?.cancel()
        next?.turn.resume(returning: true)
    }
}
