import Synchronization
import YrdenConfig
import YrdenTransport

/// Every server's ``UpstreamConnection``, and the channel that hands new ones to ``Gateway/run()``'s task group.
///
/// Servers come and go while the gateway runs, so a connection is not started where it is made: it waits
/// here until the gateway's one task group takes it. That queue holds at most one connection per server
/// (a server's connection is stopped, and dropped if not started yet, before another is added), so it is
/// bounded by the config. Once the gateway has stopped, nothing starts any more and every waiter is released.
final class UpstreamConnections: Sendable {
    private struct State {
        /// The connection of each server that has one (an enabled server), started or waiting to start.
        var current: [String: UpstreamConnection] = [:]
        /// Connections told to stop whose run has not returned yet, by server.
        var stopping: [String: Completion] = [:]
        var waiting: [UpstreamConnection] = []
        var taker: CheckedContinuation<UpstreamConnection?, Never>?
        var lastOwner: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// A token no connection has had yet, for the link the next connection will own.
    func newOwner() -> UInt64 {
        state.withLock { state in
            state.lastOwner += 1
            return state.lastOwner
        }
    }

    /// The previous connection of server `id`, if it is still stopping: the new one waits for it.
    func stillStopping(_ id: String) -> Completion? {
        state.withLock { $0.stopping[id] }
    }

    /// Makes `connection` its server's connection and hands it to the gateway's task group; once the gateway
    /// has stopped, it is finished at once instead.
    func add(_ connection: UpstreamConnection) {
        let (taker, refused) = state.withLock { state -> (CheckedContinuation<UpstreamConnection?, Never>?, Bool) in
            guard !state.closed else { return (nil, true) }
            state.current[connection.spec.id] = connection
            if let taker = state.taker {
                state.taker = nil
                return (taker, false)
            }
            state.waiting.append(connection)
            return (nil, false)
        }
        if refused { connection.finished.signal() }
        taker?.resume(returning: connection)
    }

    /// The next connection to run, or `nil` once the calling task (the gateway's run) is cancelled; from then
    /// on nothing starts.
    func next() async -> UpstreamConnection? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> UpstreamConnection?? in
                    if Task.isCancelled || state.closed { return .some(nil) }
                    if !state.waiting.isEmpty { return .some(state.waiting.removeFirst()) }
                    state.taker = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.taker = nil }
                return state.taker
            }?.resume(returning: nil)
        }
    }

    /// Refuses every later connection; the ones never started are finished. Their links keep their state.
    func close() {
        let unstarted = state.withLock { state in
            state.closed = true
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for connection in unstarted { _ = connection.inbox.close().map { $0.signal() } }
        unstarted.forEach { $0.finished.signal() }
    }

    /// Server `id`'s connection, if it has one.
    func connection(_ id: String) -> UpstreamConnection? {
        state.withLock { $0.current[id] }
    }

    func isRunning(_ id: String) -> Bool { connection(id) != nil }

    /// Tells the connections of `ids` to stop and waits, at most until `deadline`, for them to finish; returns
    /// the ids still stopping then, which finish in the background (their successors wait for them).
    func stop(_ ids: [String], until deadline: ContinuousClock.Instant, time: any TimeSource) async -> [String] {
        let stopping = state.withLock { state in
            ids.compactMap { id -> (String, Completion)? in
                if let connection = state.current.removeValue(forKey: id) {
                    if let index = state.waiting.firstIndex(where: { $0.finished === connection.finished }) {
                        // Never started: nothing to stop (an older run it waited for stays in `stopping`).
                        state.waiting.remove(at: index)
                        connection.finished.signal()
                        return state.stopping[id].map { (id, $0) }
                    }
                    state.stopping[id] = connection.finished
                    _ = connection.inbox.send(.stop)
                    return (id, connection.finished)
                }
                return state.stopping[id].map { (id, $0) }
            }
        }
        var late: [String] = []
        for (id, finished) in stopping where !(await finished.wait(until: deadline, time: time)) {
            late.append(id)
        }
        return late
    }

    /// Called by a connection whose run returned: it no longer holds its server.
    func ended(_ connection: UpstreamConnection) {
        state.withLock { state in
            let id = connection.spec.id
            if state.current[id]?.finished === connection.finished { state.current.removeValue(forKey: id) }
            if state.stopping[id] === connection.finished { state.stopping.removeValue(forKey: id) }
        }
    }
}
