import Synchronization

/// How many answers to the server's own requests (its `ping`s) may be on their way back at once.
///
/// Over HTTP each answer is a POST of its own. A server that floods requests would otherwise make the
/// gateway open one POST per request, without end; past this bound an answer is dropped (counted and
/// logged), so the server sees an unanswered request, as it would from any overloaded peer.
final class ReplyBudget: Sendable {
    static let maxInFlight = 16

    private let inFlight = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let log: @Sendable (String) -> Void

    init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
    }

    /// Whether `frame` is an answer (no method), which only this budget lets through.
    static func isReply(_ frame: OutboundFrame) -> Bool { frame.method == nil && frame.id == nil }

    /// Takes a place for one answer, or counts it as dropped; `release()` gives the place back.
    func tryAcquire() -> Bool {
        if inFlight.wrappingAdd(1, ordering: .acquiring).newValue <= Self.maxInFlight { return true }
        inFlight.wrappingSubtract(1, ordering: .relaxed)
        let count = dropped.wrappingAdd(1, ordering: .relaxed).newValue
        if count & (count - 1) == 0 {
            log(
                "dropped \(count) answers to the server's own requests so far: it sent them faster than they "
                    + "could be posted (at most \(Self.maxInFlight) at once)"
            )
        }
        return false
    }

    func release() {
        inFlight.wrappingSubtract(1, ordering: .releasing)
    }
}
