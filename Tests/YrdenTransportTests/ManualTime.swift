import YrdenTesting
import YrdenTransport

/// YrdenTesting's ``TestClock`` under the name these tests use: a clock that moves only when a test says so,
/// announcing every sleep that starts on ``sleeps`` with its deadline, so a test can see exactly when, and
/// towards what, the code under test chose to sleep.
///
/// A thin wrapper rather than a type alias, so the files using it need not import YrdenTesting themselves.
final class ManualTime: TimeSource {
    private let clock: TestClock

    init(start: ContinuousClock.Instant = .now) {
        clock = TestClock(start: start)
    }

    var now: ContinuousClock.Instant { clock.now }

    /// The deadline of each sleep, in the order they started.
    var sleeps: AsyncStream<ContinuousClock.Instant> { clock.sleeps }

    /// Sleeps still waiting.
    var waiting: Int { clock.waiting }

    /// Sleeps cut short by cancellation.
    var cancelled: Int { clock.cancelled }

    func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await clock.sleep(until: deadline)
    }

    /// Moves the clock forward and wakes every sleep that is due.
    func advance(by duration: Duration) {
        clock.advance(by: duration)
    }
}
