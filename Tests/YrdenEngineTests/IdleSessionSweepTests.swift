import Testing
import YrdenConfig
import YrdenTesting

@testable import YrdenEngine

/// The idle-session sweep waits on the gateway's clock like every other timer of the engine: a session ends
/// at its idle deadline as that clock tells it, and a use moves the deadline.
@Suite struct IdleSessionSweepTests {
    @Test func aSessionEndsAtItsIdleDeadlineOnTheGatewaysClock() async throws {
        let time = TestClock()
        let idle = Duration.seconds(60)
        let running = RunningGateway([], time: time, settings: GatewaySettings(sessionIdleTimeout: idle))
        let start = time.now
        let session = try await running.openSession()
        #expect(await time.parked(until: start + idle), "the sweep sleeps until the session's idle deadline")
        time.advance(to: start + .seconds(30))
        session.touch()
        time.advance(to: start + idle)
        // The sweep ran at the old deadline, found the session used since, and sleeps until its new one.
        #expect(await time.parked(until: start + .seconds(90)), "a use moves the deadline")
        #expect(!session.isEnded)
        time.advance(to: start + .seconds(90))
        #expect(await time.parked(until: start + .seconds(150)), "with no session left, a whole timeout away")
        #expect(session.isEnded)
        #expect(running.gateway.sessions.count == 0)
        await running.stop()
    }
}
