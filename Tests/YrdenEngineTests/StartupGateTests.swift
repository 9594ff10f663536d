import Testing

@testable import YrdenEngine

/// The gate that holds the first `initialize` and lists: opened by readiness, bounded by its deadline.
@Suite struct StartupGateTests {
    @Test func aGateWhoseDeadlinePassedIsOpen() async {
        let gate = StartupGate(deadline: .now)
        #expect(gate.isOpen)
        await gate.wait()
    }

    @Test func openingReleasesEveryWaiter() async {
        let gate = StartupGate(deadline: .now + .seconds(600))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { await gate.wait() } }
            gate.open()
            await group.waitForAll()
        }
        #expect(gate.isOpen)
    }

    @Test func theDeadlineEndsTheWaitAndOpensTheGate() async {
        let gate = StartupGate(deadline: .now + .milliseconds(50))
        await gate.wait()
        #expect(gate.isOpen)
    }

    @Test func cancellingAWaiterEndsOnlyItsWait() async {
        let gate = StartupGate(deadline: .now + .seconds(600))
        let waiter = Task { await gate.wait() }
        waiter.cancel()
        await waiter.value
        #expect(!gate.isOpen)
    }
}
