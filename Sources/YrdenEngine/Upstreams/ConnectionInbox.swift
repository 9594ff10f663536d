import Synchronization
import YrdenTransport

/// What one ``UpstreamConnection`` hears, in order: operators' commands and what its current attempt reports.
///
/// One reader (the connection's loop), any number of writers. Bounded: at most ``maxCommands`` commands
/// wait (a further one is refused, and the operator told; a stop goes in all the same, once), and an attempt reports at most four things
/// (sign-in needed, signed in, connected, failed) before it ends, so reports need no bound of their own.
final class ConnectionInbox: Sendable {
    static let maxCommands = 16

    enum Message: Sendable {
        /// `done` is signalled once the command has been carried out (a close has finished).
        case command(UpstreamLifecycle.Event, done: Completion)
        case report(AttemptReport)
    }

    /// What an attempt tells its connection.
    enum AttemptReport: Sendable {
        case signInNeeded
        case signedIn
        case connected(LiveUpstream, at: ContinuousClock.Instant)
        case failed(UpstreamError, at: ContinuousClock.Instant)
    }

    /// How a wait with a deadline ended.
    enum Wait: Sendable {
        case message(Message)
        case deadline
        case cancelled
    }

    private struct State {
        var queue: [Message] = []
        var commands = 0
        var reader: CheckedContinuation<Message?, Never>?
        var closed = false
        /// Signalled once the newest command has been carried out.
        var latest: Completion?
    }

    private let state = Mutex(State())

    init() {}

    /// Queues an operator's command; `false` when the connection has ended or ``maxCommands`` are waiting.
    /// A `stop` is never refused for the bound: it is the last command a connection reads.
    func send(_ event: UpstreamLifecycle.Event, done: Completion = Completion()) -> Bool {
        guard deliver(.command(event, done: done), isCommand: event != .stop) else { return false }
        state.withLock { $0.latest = done }
        return true
    }

    /// Signalled once the newest command sent so far has been carried out; `nil` before any.
    var latestCommand: Completion? { state.withLock { $0.latest } }

    func report(_ report: AttemptReport) {
        _ = deliver(.report(report), isCommand: false)
    }

    private func deliver(_ message: Message, isCommand: Bool) -> Bool {
        let (accepted, reader) = state.withLock { state -> (Bool, CheckedContinuation<Message?, Never>?) in
            guard !state.closed, !isCommand || state.commands < Self.maxCommands else { return (false, nil) }
            if let reader = state.reader {
                state.reader = nil
                return (true, reader)
            }
            state.queue.append(message)
            if isCommand { state.commands += 1 }
            return (true, nil)
        }
        reader?.resume(returning: message)
        return accepted
    }

    /// The next message, or `nil` as soon as the calling task is cancelled (nothing is taken then).
    func next() async -> Message? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Message?? in
                    if Task.isCancelled { return .some(nil) }
                    if !state.queue.isEmpty { return .some(take(&state)) }
                    state.reader = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.reader = nil }
                return state.reader
            }?.resume(returning: nil)
        }
    }

    /// The next message, unless `deadline` (on `time`) comes first or the calling task is cancelled.
    func next(until deadline: ContinuousClock.Instant, time: any TimeSource) async -> Wait {
        await withTaskGroup(of: Wait.self) { group in
            group.addTask { await self.next().map(Wait.message) ?? .cancelled }
            group.addTask {
                do { try await time.sleep(until: deadline) } catch { return .cancelled }
                return .deadline
            }
            var outcome = await group.next() ?? .cancelled
            group.cancelAll()
            // Both may have ended together: a message taken is never lost to the deadline.
            for await other in group {
                if case .message = other { outcome = other }
            }
            return outcome
        }
    }

    /// Drops what a closed attempt reported and nobody read: it must not be taken for the next attempt's.
    func discardReports() {
        state.withLock { state in
            state.queue.removeAll { if case .report = $0 { true } else { false } }
        }
    }

    /// Refuses every later message and returns the commands left unread, whose waiters are then released.
    func close() -> [Completion] {
        state.withLock { state in
            state.closed = true
            defer {
                state.queue.removeAll()
                state.commands = 0
            }
            return state.queue.compactMap { if case .command(_, let done) = $0 { done } else { nil } }
        }
    }

    private func take(_ state: inout State) -> Message {
        let message = state.queue.removeFirst()
        // A report carries a whole catalog inline, so the emptied queue would keep room for kilobytes, per server.
        if state.queue.isEmpty { state.queue = [] }
        if case .command(let event, _) = message, event != .stop { state.commands -= 1 }
        return message
    }
}
