import Logging
import Synchronization
import Testing
import YrdenConfig
import YrdenTransport

@testable import YrdenEngine

/// Manual time: sleepers wake only when the test advances the clock past their deadline.
final class ManualTime: TimeSource {
    private struct State {
        var now = ContinuousClock.now
        var sleepers: [UInt64: (deadline: ContinuousClock.Instant, wake: CheckedContinuation<Void, any Error>)] = [:]
        var lastID: UInt64 = 0
        var watchers: [(count: Int, wake: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    var now: ContinuousClock.Instant { state.withLock { $0.now } }

    func sleep(until deadline: ContinuousClock.Instant) async throws {
        let id = state.withLock { state in
            state.lastID += 1
            return state.lastID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, watchers) = state.withLock {
                    state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers[id] = (deadline, continuation)
                    return (nil, Self.satisfied(&state))
                }
                watchers.forEach { $0.resume() }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.wake.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }.sorted {
                $0.value.deadline < $1.value.deadline
            }
            for (id, _) in due { state.sleepers.removeValue(forKey: id) }
            return due.map(\.value.wake)
        }
        due.forEach { $0.resume() }
    }

    /// Returns once at least `count` tasks sleep on this clock, or after `limit` of real time (then `false`).
    func parked(_ count: Int, within limit: Duration = .seconds(5)) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let ready = self.state.withLock { state in
                        if state.sleepers.count >= count { return true }
                        state.watchers.append((count, continuation))
                        return false
                    }
                    if ready { continuation.resume() }
                }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            if !first { self.releaseWatchers() }
            group.cancelAll()
            return first
        }
    }

    private func releaseWatchers() {
        state.withLock { state in
            defer { state.watchers.removeAll() }
            return state.watchers.map(\.wake)
        }.forEach { $0.resume() }
    }

    private static func satisfied(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        let ready = state.watchers.filter { $0.count <= count }.map(\.wake)
        state.watchers.removeAll { $0.count <= count }
        return ready
    }
}

/// Pings, timed on the gateway's clock: due every 30 s, and three missed in a row replace the connection.
@Suite struct UpstreamPingTests {
    @Test func threeMissedPingsReplaceTheConnection() async throws {
        let time = ManualTime()
        let channels = ScriptedChannels()
        let gateway = Gateway(
            config: GatewayConfig(servers: [stdioSpec("a")]),
            logger: Logger(label: "test"),
            connector: UpstreamConnector(channels: channels, time: time)
        )
        let run = Task { await gateway.run() }
        defer { run.cancel() }
        let running = RunningGateway(observing: gateway, channels: channels, task: run)
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        channels.change { $0.answers = false }
        for missed in 1...UpstreamConnection.missedPingsBeforeReconnect {
            // The ping loop sleeps until the next ping is due; then the unanswered ping until its deadline.
            #expect(await time.parked(1), "ping \(missed) is waited for")
            #expect(channels.opens("a") == 1)
            time.advance(by: UpstreamConnection.pingInterval)
            #expect(await time.parked(1), "ping \(missed) has a deadline")
            time.advance(by: UpstreamConnection.pingTimeout)
        }
        #expect(await running.until { $0.links["a"]?.state.lastError != nil })
        let error = try #require(gateway.snapshot.links["a"]?.state.lastError)
        #expect(error.kind == .timeout)
        #expect(error.message.contains("missed 3 pings"))
    }

    @Test func aRetryWaitsForItsInstantOnTheGatewaysClock() async throws {
        let time = ManualTime()
        let channels = ScriptedChannels()
        let spec = stdioSpec(
            "a",
            reconnect: .backoff(initialDelay: .seconds(5), maxDelay: .seconds(5), maxAttempts: nil)
        )
        let gateway = Gateway(
            config: GatewayConfig(servers: [spec]),
            logger: Logger(label: "test"),
            connector: UpstreamConnector(channels: channels, time: time)
        )
        let run = Task { await gateway.run() }
        defer { run.cancel() }
        let running = RunningGateway(observing: gateway, channels: channels, task: run)
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        channels.crash("a")
        #expect(await running.until { $0.links["a"]?.state.lastError != nil })
        guard case .failed(_, 1, let retryAt?)? = gateway.snapshot.links["a"]?.state else {
            Issue.record("expected a scheduled retry")
            return
        }
        // ±20 % jitter around 5 s.
        #expect(retryAt - time.now >= .seconds(4) && retryAt - time.now <= .seconds(6))
        #expect(await time.parked(1), "the connection sleeps until its retry")
        time.advance(by: .milliseconds(3900))
        #expect(await time.parked(1), "not yet due")
        #expect(channels.opens("a") == 1)
        time.advance(by: .milliseconds(2200))
        #expect(await running.until { if case .connected = $0.links["a"]?.state { true } else { false } })
        #expect(channels.opens("a") == 2)
    }
}
