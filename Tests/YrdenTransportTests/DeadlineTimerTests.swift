import Synchronization
import Testing
import YrdenProtocol

@testable import YrdenTransport

/// The client enforces its own deadlines: one timer sleeps until the earliest, fails what is overdue (telling
/// the upstream), is woken only by an earlier deadline, and ends with the client. Time is a manual clock.
@Suite struct DeadlineTimerTests {
    private typealias Outcome = Result<Result<JSONValue, JSONRPCError>, UpstreamError>

    /// Sends `method` and returns its outcome once `channel` has seen the request leave.
    private static func send(
        _ method: String,
        on client: UpstreamClient,
        sent: inout AsyncStream<JSONRPCMessage>.Iterator,
        options: RequestOptions
    ) async -> (task: Task<Outcome, Never>, id: Int) {
        let task = Task { () -> Outcome in
            do throws(UpstreamError) {
                return .success(try await client.request(method, params: nil, options: options))
            } catch {
                return .failure(error)
            }
        }
        guard case .request(let request)? = await sent.next(isolation: #isolation), case .int(let id) = request.id
        else {
            preconditionFailure("the request did not leave")
        }
        return (task, id)
    }

    private static func timeoutError(of outcome: Outcome) -> UpstreamError? {
        guard case .failure(let error) = outcome, error.kind == .timeout else { return nil }
        return error
    }

    @Test func aRequestTimesOutAtItsDeadlineAndTheUpstreamHearsCancelled() async throws {
        let time = ManualTime()
        let start = time.now
        let (client, channel) = try RecordingChannel.client(time: time)
        var sent = channel.sent.makeAsyncIterator()
        var sleeps = time.sleeps.makeAsyncIterator()
        let (call, id) = await Self.send("hang", on: client, sent: &sent, options: RequestOptions(timeout: .seconds(5)))
        #expect(await sleeps.next() == start + .seconds(5))
        time.advance(by: .seconds(5))
        let error = Self.timeoutError(of: await call.value)
        #expect(
            error?.message == "timed out: the server did not answer within 5 s; the request was cancelled"
        )
        guard case .notification(let cancelled)? = await sent.next() else {
            Issue.record("the upstream was not told")
            return
        }
        #expect(cancelled.method == MCPMethod.cancelled)
        #expect(cancelled.params == ["requestId": .int(id), "reason": "timeout"])
        await client.close()
    }

    @Test func requestsSharingATimeoutNeverWakeTheTimer() async throws {
        let time = ManualTime()
        let start = time.now
        let (client, channel) = try RecordingChannel.client(time: time)
        var sent = channel.sent.makeAsyncIterator()
        var sleeps = time.sleeps.makeAsyncIterator()
        let options = RequestOptions(timeout: .seconds(10))
        var calls: [(task: Task<Outcome, Never>, id: Int)] = []
        calls.append(await Self.send("first", on: client, sent: &sent, options: options))
        #expect(await sleeps.next() == start + .seconds(10))
        for index in 1...50 {
            time.advance(by: .milliseconds(100))
            calls.append(await Self.send("call \(index)", on: client, sent: &sent, options: options))
        }
        // Answer all but the first and the second: the timer's next sleep goes straight to the second.
        for call in calls.dropFirst(2) {
            channel.receive(.response(JSONRPCResponse(id: .int(call.id), result: [:])))
            _ = await call.task.value
        }
        #expect(time.cancelled == 0)
        time.advance(by: .seconds(5))
        #expect(Self.timeoutError(of: await calls[0].task.value) != nil)
        #expect(await sleeps.next() == start + .milliseconds(10_100))
        #expect(time.cancelled == 0)
        time.advance(by: .milliseconds(100))
        #expect(Self.timeoutError(of: await calls[1].task.value) != nil)
        await client.close()
        #expect(time.waiting == 0)
    }

    @Test func anEarlierDeadlineWakesTheTimer() async throws {
        let time = ManualTime()
        let start = time.now
        let (client, channel) = try RecordingChannel.client(time: time)
        var sent = channel.sent.makeAsyncIterator()
        var sleeps = time.sleeps.makeAsyncIterator()
        let slow = await Self.send("slow", on: client, sent: &sent, options: RequestOptions(timeout: .seconds(60)))
        #expect(await sleeps.next() == start + .seconds(60))
        let quick = await Self.send("quick", on: client, sent: &sent, options: RequestOptions(timeout: .seconds(1)))
        #expect(await sleeps.next() == start + .seconds(1))
        #expect(time.cancelled == 1)
        time.advance(by: .seconds(1))
        #expect(Self.timeoutError(of: await quick.task.value) != nil)
        #expect(await sleeps.next() == start + .seconds(60))
        channel.receive(.response(JSONRPCResponse(id: .int(slow.id), result: ["ok": true])))
        guard case .success(.success(let value)) = await slow.task.value else {
            Issue.record("the slow request should have been answered")
            return
        }
        #expect(value == ["ok": true])
        await client.close()
    }

    @Test func progressMovesTheDeadlineUpToTheTotal() async throws {
        let time = ManualTime()
        let start = time.now
        let (client, channel) = try RecordingChannel.client(time: time)
        var sent = channel.sent.makeAsyncIterator()
        var sleeps = time.sleeps.makeAsyncIterator()
        let options = RequestOptions(timeout: .seconds(10), maxTotalTimeout: .seconds(15), onProgress: { _ in })
        let call = await Self.send("slow", on: client, sent: &sent, options: options)
        #expect(await sleeps.next() == start + .seconds(10))
        time.advance(by: .seconds(8))
        let progress = JSONRPCNotification(
            method: MCPMethod.progress,
            params: ["progressToken": .int(call.id), "progress": 1]
        )
        channel.receive(.notification(progress))
        time.advance(by: .seconds(2))
        // Still waiting at its first deadline: the timer re-plans for the extended one, capped by the total.
        #expect(await sleeps.next() == start + .seconds(15))
        #expect(time.cancelled == 0)
        time.advance(by: .seconds(5))
        #expect(Self.timeoutError(of: await call.task.value)?.message.contains("within 10 s") == true)
        await client.close()
    }

    @Test func withAGraceTheChannelsOwnReasonWinsAtTheDeadline() async throws {
        let time = ManualTime()
        let start = time.now
        let (client, channel) = try RecordingChannel.client(time: time)
        var sent = channel.sent.makeAsyncIterator()
        var sleeps = time.sleeps.makeAsyncIterator()
        let options = RequestOptions(timeout: .seconds(5), grace: .seconds(1))
        let call = await Self.send("initialize", on: client, sent: &sent, options: options)
        #expect(await sleeps.next() == start + .seconds(6))
        time.advance(by: .seconds(5))
        channel.handler.closed(UpstreamError(.protocol, "the stream never named its message endpoint"))
        guard case .failure(let error) = await call.task.value else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.message == "the stream never named its message endpoint")
        // The channel's end also ends the timer.
        #expect(time.waiting == 0)
        await client.close()
    }

    @Test func theHandshakeWaitsItsGraceByDefault() async throws {
        let time = ManualTime()
        let start = time.now
        let (client, _) = try RecordingChannel.client(time: time)
        var sleeps = time.sleeps.makeAsyncIterator()
        let handshake = Task {
            try await client.initialize(clientInfo: ["name": "t"], capabilities: [:], timeout: .seconds(3))
        }
        #expect(await sleeps.next() == start + .seconds(3) + UpstreamClient.handshakeGrace)
        time.advance(by: .seconds(4))
        await #expect(throws: UpstreamError.self) { try await handshake.value }
        await client.close()
    }

    @Test func anIdleTimerCostsNoSleepAndEndsWithTheClient() async throws {
        let time = ManualTime()
        let (client, channel) = try RecordingChannel.client(time: time)
        var sent = channel.sent.makeAsyncIterator()
        var sleeps = time.sleeps.makeAsyncIterator()
        let call = await Self.send("x", on: client, sent: &sent, options: RequestOptions(timeout: .seconds(1)))
        _ = await sleeps.next()
        channel.receive(.response(JSONRPCResponse(id: .int(call.id), result: [:])))
        _ = await call.task.value
        // Answered: at the old deadline the timer finds nothing and parks without another sleep.
        time.advance(by: .seconds(1))
        // The next sleep the timer starts is towards the next request's deadline, not another wait of its own.
        let later = await Self.send("y", on: client, sent: &sent, options: RequestOptions(timeout: .seconds(30)))
        let next = await sleeps.next()
        #expect(next == time.now + .seconds(30))
        await client.close()
        #expect(time.waiting == 0)
        guard case .failure(let error) = await later.task.value else {
            Issue.record("closing fails what is in flight")
            return
        }
        #expect(error.kind == .notConnected)
    }

    @Test func expiringAtAChosenInstantStillWorks() async throws {
        let time = ManualTime()
        let (client, channel) = try RecordingChannel.client(time: time)
        var sent = channel.sent.makeAsyncIterator()
        let call = await Self.send("x", on: client, sent: &sent, options: RequestOptions(timeout: .seconds(20)))
        client.expireOverdueRequests(now: time.now + .seconds(19))
        client.expireOverdueRequests(now: time.now + .seconds(20))
        #expect(Self.timeoutError(of: await call.task.value) != nil)
        guard case .notification(let cancelled)? = await sent.next() else {
            Issue.record("the upstream was not told")
            return
        }
        #expect(cancelled.params?["requestId"] == .int(call.id))
        await client.close()
    }

    @Test func shedNotificationsAreReportedAsTheyHappen() async throws {
        let shed = Mutex((coalesced: 0, dropped: 0, calls: 0))
        let (client, channel) = try RecordingChannel.client(time: ManualTime()) { coalesced, dropped in
            shed.withLock { $0 = ($0.coalesced + coalesced, $0.dropped + dropped, $0.calls + 1) }
        }
        for _ in 0..<3 { channel.receive(.notification(JSONRPCNotification(method: MCPMethod.toolsListChanged))) }
        #expect(shed.withLock { $0 } == (2, 0, 2))
        for index in 0..<(UpstreamEvents.backlog + 5) {
            channel.receive(.notification(JSONRPCNotification(method: MCPMethod.message, params: ["n": .int(index)])))
        }
        #expect(shed.withLock { $0 } == (2, 5, 7))
        #expect(client.events.counts == (dropped: 5, coalesced: 2))
        await client.close()
    }
}
