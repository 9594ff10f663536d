import Synchronization
import Testing
import YrdenProtocol

@testable import YrdenTransport

/// The queue between an upstream's reader thread and the task following it: bounded whatever the upstream
/// sends, list changes coalesced, and a stop that never waits for the backlog.
@Suite struct UpstreamEventsTests {
    private static let toolsChanged = JSONRPCNotification(method: MCPMethod.toolsListChanged)

    private static func message(_ n: Int) -> JSONRPCNotification {
        JSONRPCNotification(method: MCPMethod.message, params: ["data": .int(n)])
    }

    private static func drain(_ events: UpstreamEvents) async -> [UpstreamEvent] {
        var seen: [UpstreamEvent] = []
        for await event in events {
            seen.append(event)
            if case .closed = event { break }
        }
        return seen
    }

    @Test func aFloodOfListChangesWaitsAsOne() async {
        let lines = Mutex<[String]>([])
        let events = UpstreamEvents(log: { line in lines.withLock { $0.append(line) } })
        for _ in 0..<100_000 { events.yield(Self.toolsChanged) }
        events.yield(JSONRPCNotification(method: MCPMethod.promptsListChanged))
        events.finish(UpstreamError(.notConnected, "gone"))
        // The end overtakes what waits, so a follower that is still reading learns of it first.
        let first = await events.next()
        guard case .closed = first else {
            Issue.record("expected the end first, got \(String(describing: first))")
            return
        }
        #expect(await events.next() == nil)
        #expect(events.counts.coalesced == 99_999)
        #expect(lines.withLock { $0.contains { $0.contains("coalesced 65536 list-changed notifications") } })
    }

    @Test func listChangesAreDeliveredOnceEachWhileOthersKeepTheirOrder() async {
        let events = UpstreamEvents(log: { _ in })
        events.yield(Self.message(1))
        for _ in 0..<10 { events.yield(Self.toolsChanged) }
        events.yield(Self.message(2))
        let methods = [await events.next(), await events.next(), await events.next()].map { event -> String in
            guard case .notification(let notification) = event else { return "end" }
            return notification.method + (notification.params?["data"]?.intValue.map { " \($0)" } ?? "")
        }
        #expect(methods == [MCPMethod.toolsListChanged, "\(MCPMethod.message) 1", "\(MCPMethod.message) 2"])
        // Taken, the list change may be queued again: a change after a refresh began needs another refresh.
        events.yield(Self.toolsChanged)
        events.finish(UpstreamError(.notConnected, "gone"))
        events.yield(Self.toolsChanged)
        #expect(await Self.drain(events).count == 1)
    }

    @Test func otherNotificationsPastTheBacklogAreDroppedAndCounted() async {
        let lines = Mutex<[String]>([])
        let events = UpstreamEvents(log: { line in lines.withLock { $0.append(line) } })
        for n in 0..<(UpstreamEvents.backlog + 1000) { events.yield(Self.message(n)) }
        #expect(events.counts.dropped == 1000)
        #expect(lines.withLock { $0.contains { $0.hasPrefix("dropped 512 notifications so far") } })
        var kept = 0
        while kept < UpstreamEvents.backlog, case .notification = await events.next() { kept += 1 }
        #expect(kept == UpstreamEvents.backlog)
    }

    @Test func aCancelledFollowerStopsAtOnceWithABacklog() async {
        let events = UpstreamEvents(log: { _ in })
        for n in 0..<UpstreamEvents.backlog { events.yield(Self.message(n)) }
        let follower = Task { () -> Int in
            var seen = 0
            for await _ in events {
                seen += 1
                withUnsafeCurrentTask { $0?.cancel() }
            }
            return seen
        }
        #expect(await follower.value == 1)
    }

    @Test func aWaitingFollowerWakesForANotificationForTheEndAndForCancellation() async {
        let events = UpstreamEvents(log: { _ in })
        let first = Task { await events.next() }
        events.yield(Self.toolsChanged)
        guard case .notification(let notification) = await first.value else {
            Issue.record("the waiting follower was not woken by a notification")
            return
        }
        #expect(notification.method == MCPMethod.toolsListChanged)

        let second = Task { await events.next() }
        second.cancel()
        #expect(await second.value == nil)

        let third = Task { await events.next() }
        events.finish(UpstreamError(.notConnected, "gone"))
        guard case .closed = await third.value else {
            Issue.record("the waiting follower did not hear the end")
            return
        }
    }
}

extension UpstreamEvent: Equatable {
    public static func == (lhs: UpstreamEvent, rhs: UpstreamEvent) -> Bool {
        switch (lhs, rhs) {
        case (.notification(let a), .notification(let b)): a.method == b.method
        case (.closed, .closed): true
        default: false
        }
    }
}
