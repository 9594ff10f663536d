/// Time for deadlines, retries and pings: the system's monotonic clock in the gateway, a manual clock in
/// tests (`YrdenTesting.TestClock`), so timeouts and backoff are tested without waiting for them.
package protocol TimeSource: Sendable {
    var now: ContinuousClock.Instant { get }
    /// Suspends until `deadline`; throws `CancellationError` when the task is cancelled first.
    func sleep(until deadline: ContinuousClock.Instant) async throws
}

/// The system's monotonic clock.
package struct SystemTime: TimeSource {
    package init() {}

    package var now: ContinuousClock.Instant { .now }

    package func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}

extension TimeSource where Self == SystemTime {
    package static var system: SystemTime { SystemTime() }
}
