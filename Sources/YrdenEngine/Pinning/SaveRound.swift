import Synchronization
import YrdenTransport

/// One round of the pin saver: the approvals made before it began are published and written by it, and wait
/// for it to finish, so an approval is answered only once the pin file holds it.
///
/// The wait is an event (``Completion``), with a deadline on the gateway's clock: a disk that hangs does not
/// hold an operator's request for ever.
final class SaveRound: Sendable {
    private let done = Completion()
    /// Why the round's write failed; `nil` when it succeeded.
    private let failure = Mutex<String?>(nil)

    /// Ends the round: `failure` says why the book could not be written, `nil` when it was.
    func finish(_ failure: String?) {
        self.failure.withLock { $0 = failure }
        done.signal()
    }

    /// How the round ended for one of its approvals.
    enum Outcome: Sendable, Hashable {
        case saved
        case failed(String)
        case timedOut
    }

    /// Waits until the round is over or `deadline` passes (read and slept on `time`).
    func outcome(by deadline: ContinuousClock.Instant, time: any TimeSource) async -> Outcome {
        guard await done.wait(until: deadline, time: time) else { return .timedOut }
        return failure.withLock { $0 }.map(Outcome.failed) ?? .saved
    }
}
