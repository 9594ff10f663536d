import Synchronization

/// How many lines of one kind may be logged per second: a client repeating a bad token, or an attacker sending
/// thousands, must not turn each refusal into a log line (the log queue is bounded, so the flood would push out
/// every other line). Past the allowance lines are counted, and the next line let through says how many were not
/// written.
final class LogAllowance: Sendable {
    let perSecond: Int
    private let state = Mutex((second: Int64(0), written: 0, skipped: 0))

    init(perSecond: Int = 10) { self.perSecond = perSecond }

    /// `nil` when this line is not to be written; else how many were skipped since the last one written.
    func admit(now: Double) -> Int? {
        let second = Int64(now)
        return state.withLock { state -> Int? in
            if second != state.second {
                state.second = second
                state.written = 0
            }
            guard state.written < perSecond else {
                state.skipped += 1
                return nil
            }
            state.written += 1
            defer { state.skipped = 0 }
            return state.skipped
        }
    }
}
