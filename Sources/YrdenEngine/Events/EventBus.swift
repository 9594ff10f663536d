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
    /// The last sequence number handed out, and the events before it that a resumed stream may replay. Held
    /// while a batch is numbered and handed over, so every subscriber receives events in the order of their
    /// numbers, whichever threads publish, and a resumed one is registered between two batches.
    private let lastSequence = Mutex<(last: UInt64, recent: RecentEvents)>((0, RecentEvents()))
    /// Events kept per subscriber that has not read them yet.
    static let backlog = 1024

    package init() {}

    /// A stream of every event published from now on; it ends when the consumer stops iterating.
    package func subscribe() -> AsyncStream<SequencedEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SequencedEvent.self,
            bufferingPolicy: .bufferingNewest(Self.backlog)
        )
        register(continuation)
        return stream
    }

    /// A stream of every event numbered after `last` (those still held first, then each published from now on,
    /// none twice and none left out), and `true`; when some of those are no longer held, or `last` was never
    /// handed out (the gateway restarted since), the events published from now on and `false`.
    package func subscribe(after last: UInt64) -> (events: AsyncStream<SequencedEvent>, complete: Bool) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SequencedEvent.self,
            bufferingPolicy: .bufferingNewest(Self.backlog)
        )
        let complete = lastSequence.withLock { sequence in
            let missed = sequence.recent.after(last, lastHandedOut: sequence.last)
            for event in missed ?? [] { continuation.yield(event) }
            register(continuation)
            return missed != nil
        }
        return (stream, complete)
    }

    private func register(_ continuation: AsyncStream<SequencedEvent>.Continuation) {
        let id = subscribers.withLock { subscribers in
            subscribers.next += 1
            subscribers.continuations[subscribers.next] = continuation
            return subscribers.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
    }

    package var subscriberCount: Int { subscribers.withLock { $0.continuations.count } }

    /// Numbers `events` and hands them to every subscriber. A yield only buffers the event and makes the
    /// subscriber's task runnable elsewhere (never here: the gateway publishes from no thread that runs tasks
    /// inline), so holding ``lastSequence`` meanwhile cannot wait on a subscriber.
    func publish(_ events: [GatewayEvent]) {
        guard !events.isEmpty else { return }
        let held = events.map(\.heldBytes)
        lastSequence.withLock { sequence in
            let continuations = subscribers.withLock { Array($0.continuations.values) }
            for (event, heldBytes) in zip(events, held) {
                sequence.last += 1
                let numbered = SequencedEvent(sequence: sequence.last, event: event)
                sequence.recent.append(numbered, heldBytes: heldBytes)
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
