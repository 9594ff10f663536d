import Synchronization

/// Hands every ``GatewayEvent`` to each current subscriber, without ever waiting on one.
///
/// A subscriber that does not keep up loses the oldest of its undelivered events, never the gateway's time:
/// events are published while the gateway's state lock has just been released, on whatever task made the
/// change.
package final class EventBus: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<GatewayEvent>.Continuation] = [:]
    }

    private let subscribers = Mutex(Subscribers())
    /// Events kept per subscriber that has not read them yet.
    static let backlog = 1024

    package init() {}

    /// A stream of every event published from now on; it ends when the consumer stops iterating.
    package func subscribe() -> AsyncStream<GatewayEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: GatewayEvent.self,
            bufferingPolicy: .bufferingNewest(Self.backlog)
        )
        let id = subscribers.withLock { subscribers in
            subscribers.next += 1
            subscribers.continuations[subscribers.next] = continuation
            return subscribers.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    package var subscriberCount: Int { subscribers.withLock { $0.continuations.count } }

    func publish(_ events: [GatewayEvent]) {
        guard !events.isEmpty else { return }
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations {
            for event in events { continuation.yield(event) }
        }
    }

    /// Ends every subscription: the gateway is stopping.
    func finishAll() {
        let continuations = subscribers.withLock { subscribers in
            defer { subscribers.continuations.removeAll() }
            return Array(subscribers.continuations.values)
        }
        continuations.forEach { $0.finish() }
    }
}
