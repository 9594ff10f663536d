import Synchronization

/// Hands every ``GatewayEvent`` to each current subscriber, numbered in the order published, without ever
/// waiting on one.
///
/// A subscriber that does not keep up loses the oldest of its undelivered events, never the gateway's time.
/// The gateway's writer publishes each batch of changes after applying it and before applying the next, so
/// the numbers follow the order of application; pinning's reports are published by whoever observed them.
package final class EventBus: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<SequencedEvent>.Continuation] = [:]
    }

    private let subscribers = Mutex(Subscribers())
    /// The last sequence number handed out. Held while a batch is numbered and handed over, so every subscriber
    /// receives events in the order of their numbers, whichever threads publish.
    private let lastSequence = Mutex<UInt64>(0)
    /// Events kept per subscriber that has not read them yet.
    static let backlog = 1024

    package init() {}

    /// A stream of every event published from now on; it ends when the consumer stops iterating.
    package func subscribe() -> AsyncStream<SequencedEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SequencedEvent.self,
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

    /// Numbers `events` and hands them to every subscriber. A yield only buffers the event and makes the
    /// subscriber's task runnable elsewhere (never here: the gateway publishes from no thread that runs tasks
    /// inline), so holding ``lastSequence`` meanwhile cannot wait on a subscriber.
    func publish(_ events: [GatewayEvent]) {
        guard !events.isEmpty else { return }
        lastSequence.withLock { last in
            let continuations = subscribers.withLock { Array($0.continuations.values) }
            for event in events {
                last += 1
                let numbered = SequencedEvent(sequence: last, event: event)
                for continuation in continuations { continuation.yield(numbered) }
            }
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
