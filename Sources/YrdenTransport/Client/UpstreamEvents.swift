import Synchronization
import YrdenProtocol

/// What an upstream says on its own, on its way from the channel's reader thread to the one task that
/// follows it, with a bound whatever the upstream sends.
///
/// The reader never waits: a list-changed notification already waiting is not queued twice (one refresh
/// answers any number of them), other notifications past ``backlog`` are dropped, and both are counted and
/// logged. The end of the connection overtakes anything still queued, and a follower whose task is
/// cancelled gets `nil` at once, queued events or not: stopping a server never waits for its backlog.
package final class UpstreamEvents: AsyncSequence, Sendable {
    package typealias Element = UpstreamEvent

    /// Notifications other than list changes that may wait for the follower.
    package static let backlog = 256

    /// The notifications that one later refresh answers however many arrived.
    private static let coalesced: Set<String> = [
        MCPMethod.toolsListChanged, MCPMethod.promptsListChanged, MCPMethod.resourcesListChanged,
    ]

    private struct State {
        var listChanges: [JSONRPCNotification] = []
        var others: [JSONRPCNotification] = []
        var end: UpstreamError?
        var endDelivered = false
        var follower: CheckedContinuation<UpstreamEvent?, Never>?
        var coalescedCount = 0
        var droppedCount = 0

        /// The next event for the follower; the end first, once.
        mutating func take() -> UpstreamEvent? {
            if let end {
                guard !endDelivered else { return nil }
                endDelivered = true
                listChanges.removeAll()
                others.removeAll()
                return .closed(end)
            }
            if !listChanges.isEmpty { return .notification(listChanges.removeFirst()) }
            if !others.isEmpty { return .notification(others.removeFirst()) }
            return nil
        }
    }

    private let state = Mutex(State())
    private let log: @Sendable (String) -> Void
    private let onShed: @Sendable (_ coalesced: Int, _ dropped: Int) -> Void

    /// `onShed` hears each notification coalesced or dropped, with the increments, outside the lock.
    package init(
        log: @escaping @Sendable (String) -> Void,
        onShed: @escaping @Sendable (_ coalesced: Int, _ dropped: Int) -> Void = { _, _ in }
    ) {
        self.log = log
        self.onShed = onShed
    }

    /// Queues a notification (or counts it as coalesced or dropped). Never blocks.
    package func yield(_ notification: JSONRPCNotification) {
        enum Outcome {
            case queued
            case coalesced(Int)
            case dropped(Int)
        }
        let (outcome, wake) = state.withLock {
            state -> (Outcome, (CheckedContinuation<UpstreamEvent?, Never>, UpstreamEvent)?) in
            guard state.end == nil else { return (.queued, nil) }
            if Self.coalesced.contains(notification.method) {
                if state.listChanges.contains(where: { $0.method == notification.method }) {
                    state.coalescedCount += 1
                    return (.coalesced(state.coalescedCount), nil)
                }
                state.listChanges.append(notification)
            } else if state.others.count >= Self.backlog {
                state.droppedCount += 1
                return (.dropped(state.droppedCount), nil)
            } else {
                state.others.append(notification)
            }
            guard let follower = state.follower, let event = state.take() else { return (.queued, nil) }
            state.follower = nil
            return (.queued, (follower, event))
        }
        if let (follower, event) = wake { follower.resume(returning: event) }
        switch outcome {
        case .queued: break
        case .coalesced: onShed(1, 0)
        case .dropped: onShed(0, 1)
        }
        switch outcome {
        case .queued:
            break
        case .coalesced(let count) where count.isPowerOfTwo:
            log("coalesced \(count) list-changed notifications so far: one refresh answers those still waiting")
        case .dropped(let count) where count.isPowerOfTwo:
            log(
                "dropped \(count) notifications so far: the server sent them faster than the gateway handles them "
                    + "(at most \(Self.backlog) wait)"
            )
        case .coalesced, .dropped:
            break
        }
    }

    /// The connection ended: the follower gets `.closed(error)` next, and nothing after it.
    package func finish(_ error: UpstreamError) {
        let wake = state.withLock { state -> (CheckedContinuation<UpstreamEvent?, Never>, UpstreamEvent?)? in
            if state.end == nil { state.end = error }
            guard let follower = state.follower else { return nil }
            state.follower = nil
            return (follower, state.take())
        }
        if let (follower, event) = wake { follower.resume(returning: event) }
    }

    /// Whether the connection has ended (``finish(_:)``), whether or not its follower heard it yet.
    package var hasEnded: Bool { state.withLock { $0.end != nil } }

    /// How many notifications were dropped and coalesced so far.
    package var counts: (dropped: Int, coalesced: Int) {
        state.withLock { ($0.droppedCount, $0.coalescedCount) }
    }

    /// The next event, or `nil` after the end or as soon as the calling task is cancelled. One follower.
    package func next() async -> UpstreamEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<UpstreamEvent?, Never>) in
                let ready = state.withLock { state -> UpstreamEvent?? in
                    if Task.isCancelled { return .some(nil) }
                    if let event = state.take() { return .some(event) }
                    if state.endDelivered { return .some(nil) }
                    state.follower = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let follower = state.withLock { state in
                defer { state.follower = nil }
                return state.follower
            }
            follower?.resume(returning: nil)
        }
    }

    package struct AsyncIterator: AsyncIteratorProtocol {
        let events: UpstreamEvents
        package mutating func next() async -> UpstreamEvent? { await events.next() }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(events: self) }
}

extension Int {
    fileprivate var isPowerOfTwo: Bool { self > 0 && self & (self - 1) == 0 }
}
