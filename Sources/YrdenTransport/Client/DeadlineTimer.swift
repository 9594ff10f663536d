import Synchronization

/// Enforces one client's request deadlines without polling: a single loop that sleeps until the earliest
/// pending deadline, fails what is overdue, and sleeps towards the next.
///
/// Waiting costs nothing: with nothing pending the loop is a parked continuation, otherwise one sleep on the
/// ``TimeSource``. It is woken only when a deadline earlier than the one it sleeps towards appears, which
/// requests sharing one timeout never cause (each new deadline is later than the armed one).
final class DeadlineTimer: Sendable {
    private enum Phase {
        /// Planning the next wait; `woken` remembers an earlier deadline that arrived meanwhile.
        case planning(woken: Bool)
        /// Nothing pending: parked until a first deadline arrives.
        case idle(CheckedContinuation<Void, Never>)
        /// Sleeping towards the earliest deadline; cancelling the sleeper re-plans at once.
        case sleeping(Task<Void, Never>)
        case ended
    }

    private enum Wake {
        case resume(CheckedContinuation<Void, Never>)
        case cancel(Task<Void, Never>)
    }

    private let phase = Mutex(Phase.planning(woken: false))
    private let time: any TimeSource

    init(time: any TimeSource) {
        self.time = time
    }

    /// A deadline earlier than the one the loop waits for (or a first one) was registered: plan again.
    func wake() {
        let wake = phase.withLock { phase -> Wake? in
            switch phase {
            case .planning:
                phase = .planning(woken: true)
                return nil
            case .idle(let continuation):
                phase = .planning(woken: false)
                return .resume(continuation)
            case .sleeping(let sleeper):
                phase = .planning(woken: false)
                return .cancel(sleeper)
            case .ended:
                return nil
            }
        }
        Self.perform(wake)
    }

    /// Ends the loop: the client closed or its channel did.
    func end() {
        let wake = phase.withLock { phase -> Wake? in
            defer { phase = .ended }
            switch phase {
            case .idle(let continuation): return .resume(continuation)
            case .sleeping(let sleeper): return .cancel(sleeper)
            case .planning, .ended: return nil
            }
        }
        Self.perform(wake)
    }

    /// The loop. `expire` fails what is overdue at the instant it is given and returns the earliest deadline
    /// still pending (`nil`: nothing is), which it must also record as the one the loop now waits for.
    func run(expire: @Sendable (ContinuousClock.Instant) -> ContinuousClock.Instant?) async {
        var target: ContinuousClock.Instant?
        while true {
            if let target {
                let time = self.time
                let sleeper = phase.withLock { phase -> Task<Void, Never>? in
                    guard case .planning(woken: false) = phase else { return nil }
                    let sleeper = Task { _ = try? await time.sleep(until: target) }
                    phase = .sleeping(sleeper)
                    return sleeper
                }
                await sleeper?.value
            } else {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let parked = phase.withLock { phase -> Bool in
                        guard case .planning(woken: false) = phase else { return false }
                        phase = .idle(continuation)
                        return true
                    }
                    if !parked { continuation.resume() }
                }
            }
            let ended = phase.withLock { phase -> Bool in
                if case .ended = phase { return true }
                // Whatever woke the loop, the plan below reads every deadline afresh.
                phase = .planning(woken: false)
                return false
            }
            if ended { return }
            target = expire(time.now)
        }
    }

    private static func perform(_ wake: Wake?) {
        switch wake {
        case .resume(let continuation): continuation.resume()
        case .cancel(let sleeper): sleeper.cancel()
        case nil: break
        }
    }
}
