import Glibc
import Testing
import YrdenTesting

@testable import YrdenTransport

/// The loop's own ticks, which feed `yrden_event_loop_lag_seconds`: work that holds the loop's thread shows up as
/// a tick that ran late by as long.
@Suite struct LoopLagTests {
    @Test func aJobThatHoldsTheLoopMakesTheTickDueMeanwhileLate() async throws {
        let reactor = try ProcessReactor.running()
        let (ticks, tick) = AsyncStream.makeStream(of: Duration.self)
        let probe = reactor.measureLag(every: .milliseconds(10)) { tick.yield($0) }
        defer { reactor.stopMeasuringLag(probe) }
        // Once the first tick has come, a job holds the loop for 300 ms; a tick was due within 10 ms of its start.
        // The limit only matters when no late tick ever comes.
        let late = await withDeadline(.seconds(30)) { () -> Duration? in
            var held = false
            for await lag in ticks {
                if !held {
                    held = true
                    reactor.perform { usleep(300_000) }
                } else if lag >= .milliseconds(250) {
                    return lag
                }
            }
            return nil
        }
        #expect(late != nil)
    }
}
