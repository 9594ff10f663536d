import Synchronization
import YrdenProtocol
import YrdenTransport

/// How many tool searches run at once: a few, each on the global executor (a 64-term search over 20,000
/// tools takes tens of milliseconds, which the event loop must not spend), a bounded number waiting for a turn
/// for a bounded time, and the rest refused with a clear error instead of piling up.
final class SearchSlots: Sendable {
    /// Why a search did not get a turn.
    enum Refusal: Error, Sendable, Hashable {
        /// `waiting` searches were queued already.
        case queueFull(waiting: Int)
        /// The search waited `limit` without its turn coming.
        case waitedTooLong(limit: Duration)
        /// Its request was cancelled while it waited.
        case cancelled
    }

    private struct Waiter {
        var ticket: UInt64
        var continuation: CheckedContinuation<Refusal?, Never>
        var timer: Task<Void, Never>?
    }

    private struct State {
        var running = 0
        var waiters: [Waiter] = []
        var lastTicket: UInt64 = 0
    }

    let maxRunning: Int
    let maxWaiting: Int
    let maxWait: Duration
    private let state = Mutex(State())

    init(maxRunning: Int = 4, maxWaiting: Int = 64, maxWait: Duration = .seconds(5)) {
        self.maxRunning = maxRunning
        self.maxWaiting = maxWaiting
        self.maxWait = maxWait
    }

    /// Runs `search` on the global executor once a slot is free (in arrival order, waiting at most ``maxWait``
    /// on `time`, the gateway's clock).
    func run<Result: Sendable>(
        time: any TimeSource,
        _ search: @escaping @Sendable () -> Result
    ) async throws(Refusal) -> Result {
        try await enter(time)
        defer { leave() }
        return await Self.offLoop(search)
    }

    @concurrent
    private static func offLoop<Result: Sendable>(_ search: @escaping @Sendable () -> Result) async -> Result {
        // `@concurrent` leaves the caller's executor, but a request task prefers `InlineExecutor`, which would be
        // offered the job first: say where it runs.
        await withTaskExecutorPreference(globalConcurrentExecutor) { search() }
    }

    /// Waits for a slot (in arrival order, at most ``maxWait`` on `time`); the caller must ``leave()`` once done.
    func enter(_ time: any TimeSource) async throws(Refusal) {
        let ticket = state.withLock { state -> UInt64 in
            state.lastTicket += 1
            return state.lastTicket
        }
        let refusal = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Refusal?, Never>) in
                let queued = state.withLock { state -> Bool in
                    if Task.isCancelled {
                        continuation.resume(returning: .cancelled)
                        return false
                    }
                    if state.running < maxRunning, state.waiters.isEmpty {
                        state.running += 1
                        continuation.resume(returning: nil)
                        return false
                    }
                    guard state.waiters.count < maxWaiting else {
                        continuation.resume(returning: .queueFull(waiting: state.waiters.count))
                        return false
                    }
                    state.waiters.append(Waiter(ticket: ticket, continuation: continuation))
                    return true
                }
                guard queued else { return }
                // Unstructured: the wait's deadline runs beside the waiting task, which is suspended; cancelled
                // once the waiter has its turn.
                let timer = Task { [maxWait] in
                    guard (try? await time.sleep(until: time.now + maxWait)) != nil else { return }
                    self.refuse(ticket, .waitedTooLong(limit: maxWait))
                }
                let served = state.withLock { state -> Bool in
                    guard let index = state.waiters.firstIndex(where: { $0.ticket == ticket }) else { return true }
                    state.waiters[index].timer = timer
                    return false
                }
                if served { timer.cancel() }
            }
        } onCancel: {
            refuse(ticket, .cancelled)
        }
        if let refusal { throw refusal }
    }

    /// Hands the slot to the longest waiting search, or frees it.
    func leave() {
        let next = state.withLock { state -> Waiter? in
            guard !state.waiters.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.timer?.cancel()
        next?.continuation.resume(returning: nil)
    }

    private func refuse(_ ticket: UInt64, _ refusal: Refusal) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.ticket == ticket }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.timer?.cancel()
        waiter?.continuation.resume(returning: refusal)
    }
}

extension SearchSlots.Refusal {
    /// The error the client sees: the search did not run, and why.
    var rpcError: JSONRPCError {
        let why =
            switch self {
            case .queueFull(let waiting): "\(waiting) searches wait already"
            case .waitedTooLong(let limit): "no turn came within \(limit)"
            case .cancelled: "the request was cancelled"
            }
        return JSONRPCError(code: -32000, message: "the gateway is busy searching tools (\(why)); try again shortly")
    }
}
