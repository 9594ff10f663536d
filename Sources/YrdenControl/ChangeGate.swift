import Synchronization

/// Lets one operator's change through at a time, from its first check to its applied state.
///
/// The config store is an actor, but an actor runs other calls whenever one of its methods awaits: a `POST`
/// could check "no such server" while a `DELETE` of the same id is still stopping it, and the file and the
/// running gateway would then disagree. Every change passes this gate instead, in arrival order. The queue is
/// bounded and so is the wait: past either, the change is refused instead of piling up.
final class ChangeGate: Sendable {
    /// Why a change did not get through.
    enum Refusal: Error, Sendable, Hashable {
        /// `waiting` changes were queued already.
        case queueFull(waiting: Int)
        /// The change waited `limit` without its turn coming.
        case waitedTooLong(limit: Duration)
    }

    private enum Outcome {
        case entered
        case refused(Refusal)
    }

    private struct Waiter {
        var ticket: Int
        var continuation: CheckedContinuation<Outcome, Never>
        var timer: Task<Void, Never>?
    }

    private struct State {
        var held = false
        var waiters: [Waiter] = []
        var nextTicket = 0
    }

    let maxWaiting: Int
    let maxWait: Duration
    private let state = Mutex(State())

    init(maxWaiting: Int = 256, maxWait: Duration = .seconds(30)) {
        self.maxWaiting = maxWaiting
        self.maxWait = maxWait
    }

    /// Waits for the gate (in arrival order), at most ``maxWait``; the caller must ``leave()`` once through.
    func enter() async throws(Refusal) {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let queued = state.withLock { state -> Int? in
                if !state.held {
                    state.held = true
                    continuation.resume(returning: .entered)
                    return nil
                }
                guard state.waiters.count < maxWaiting else {
                    continuation.resume(returning: .refused(.queueFull(waiting: state.waiters.count)))
                    return nil
                }
                state.nextTicket += 1
                state.waiters.append(Waiter(ticket: state.nextTicket, continuation: continuation))
                return state.nextTicket
            }
            guard let ticket = queued else { return }
            let timer = Task { [maxWait] in
                try? await Task.sleep(for: maxWait)
                self.expire(ticket)
            }
            let served = state.withLock { state -> Bool in
                guard let index = state.waiters.firstIndex(where: { $0.ticket == ticket }) else { return true }
                state.waiters[index].timer = timer
                return false
            }
            if served { timer.cancel() }
        }
        if case .refused(let refusal) = outcome { throw refusal }
    }

    /// Hands the gate to the longest waiting change, or opens it.
    func leave() {
        let next = state.withLock { state -> Waiter? in
            guard !state.waiters.isEmpty else {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.timer?.cancel()
        next?.continuation.resume(returning: .entered)
    }

    private func expire(_ ticket: Int) {
        let expired = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.ticket == ticket }) else { return nil }
            return state.waiters.remove(at: index)
        }
        expired?.continuation.resume(returning: .refused(.waitedTooLong(limit: maxWait)))
    }
}
