import CYrdenProcess
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Writes frames to a child's stdin without ever blocking the caller, and without holding a lock across `write`.
///
/// The first sender to find the pipe idle becomes its writer: it writes its frame with a non-blocking `write`
/// outside the lock, then writes whatever other senders queued meanwhile, in one `write` per round. Those senders
/// only append under the lock and return, so concurrent calls to one server never wait on each other's system
/// calls (under load, many frames go out in one `write` and wake the child once). When the pipe is full the rest
/// goes to the ``ProcessReactor``, which drains it as the pipe becomes writable, so a child that stops reading
/// cannot stall the gateway, frames keep their order, and no thread waits on any one child. Frames sent from the
/// reactor's own thread (requests it read from HTTP clients) are queued until the end of its pass and go out
/// together: under load one `write` and one wake-up of the child carry a whole pass's requests.
final class PipeWriter: Sendable {
    private struct State {
        var queue: [UInt8] = []
        /// A sender is writing outside the lock; others queue behind it.
        var writing = false
        /// The reactor waits for room in the pipe; others queue behind it.
        var flushing = false
        var closed = false
        var fdClosed = false
        var token: UInt64?

        /// Neither a sender nor the reactor is writing: the descriptor may be closed.
        var idle: Bool { !writing && !flushing }

        mutating func enqueue(_ bytes: [UInt8], _ terminator: UInt8?) {
            queue.append(contentsOf: bytes)
            if let terminator { queue.append(terminator) }
        }
    }

    private let fd: Int32
    private let reactor: ProcessReactor
    private let state = Mutex(State())
    /// Beyond this much unsent data the child is considered stuck and sends fail.
    private let maxQueuedBytes: Int
    /// Called once when nobody reads the pipe any more, whichever write found out.
    private let onBroken: @Sendable () -> Void
    /// Rounds one sender writes for others before it hands what is left to the reactor, so a steady stream of
    /// other senders' frames cannot keep one caller here.
    private static let maxRounds = 8

    init(
        fd: Int32,
        reactor: ProcessReactor,
        maxQueuedBytes: Int = 64 << 20,
        onBroken: @escaping @Sendable () -> Void = {}
    ) {
        self.fd = fd
        self.reactor = reactor
        self.maxQueuedBytes = maxQueuedBytes
        self.onBroken = onBroken
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// What became of a frame given to ``write(_:)``.
    enum Outcome: Equatable {
        /// Written or queued; should the pipe turn out broken, `onBroken` says so.
        case accepted
        /// The pipe was closed here, or the child stopped reading with too much queued.
        case refused
    }

    /// Writes `bytes` and then `terminator` (a stdio frame's newline, added here rather than by copying the
    /// frame), or queues them behind the frames already on their way.
    func write(_ bytes: [UInt8], terminator: UInt8? = nil) -> Outcome {
        let onLoop = reactor.isCurrentThread
        let admission = state.withLock { state -> Admission in
            guard !state.closed else { return .refused }
            guard state.idle else {
                let added = bytes.count + (terminator == nil ? 0 : 1)
                guard state.queue.count + added <= maxQueuedBytes else { return .refused }
                state.enqueue(bytes, terminator)
                return .queued
            }
            state.writing = true
            guard onLoop else { return .writeNow }
            state.enqueue(bytes, terminator)
            return .writeAtEndOfPass
        }
        switch admission {
        case .refused: return .refused
        case .queued: break
        case .writeNow: writeAsWriter(terminator.map { bytes + [$0] } ?? bytes)
        case .writeAtEndOfPass: reactor.atEndOfPass { [self] in writeQueued() }
        }
        return .accepted
    }

    private enum Admission {
        case refused
        /// Behind a writer, who writes it.
        case queued
        /// This sender is the writer.
        case writeNow
        /// The first frame of the reactor's pass: the reactor writes it, and what follows it, when the pass ends.
        case writeAtEndOfPass
    }

    /// Writes what senders on the reactor's thread queued during its pass. Reactor thread only.
    private func writeQueued() {
        let batch = state.withLock { state in
            defer { state.queue = [] }
            return state.queue
        }
        writeAsWriter(batch)
    }

    /// The writer's rounds: `bytes` first, then what others queued, until nothing is left, the pipe is full
    /// (the reactor takes over) or it broke.
    private func writeAsWriter(_ first: [UInt8]) {
        var batch = first
        var rounds = 0
        while true {
            let written = batch.withUnsafeBytes { writeSome($0) }
            rounds += 1
            let next: (broken: Bool, more: [UInt8]?, arm: Bool, close: Bool) = state.withLock { state in
                if written < 0 {
                    state.writing = false
                    state.closed = true
                    state.queue.removeAll()
                    return (true, nil, false, true)
                }
                if written < batch.count || (rounds >= Self.maxRounds && !state.queue.isEmpty) {
                    // The pipe is full, or this sender has written enough for others: the reactor finishes.
                    state.queue.insert(contentsOf: batch[written...], at: 0)
                    state.writing = false
                    state.flushing = true
                    return (false, nil, true, false)
                }
                guard state.queue.isEmpty else {
                    defer { state.queue = [] }
                    return (false, state.queue, false, false)
                }
                state.writing = false
                // `close()` or `abandon()` came while this sender wrote: the descriptor is for it to close.
                return (false, nil, false, state.closed)
            }
            if next.broken { onBroken() }
            if next.arm { reactor.perform { [self] in armWritable() } }
            if next.close { reactor.perform { [self] in closeDescriptor() } }
            guard let more = next.more else { return }
            batch = more
        }
    }

    /// Closes stdin once what is queued has been written, which tells a well-behaved server to exit.
    func close() {
        let closeNow = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.closed = true
            return state.idle
        }
        if closeNow { reactor.perform { [self] in closeDescriptor() } }
    }

    /// Drops what is queued and closes stdin now: the child is gone. Reactor thread only. A sender in the middle
    /// of a `write` closes the descriptor itself when it returns, so the number is never reused under it.
    func abandon() {
        let closeNow = state.withLock { state -> Bool in
            state.closed = true
            state.queue.removeAll()
            return !state.writing
        }
        if closeNow { closeDescriptor() }
    }

    /// Bytes written, fewer when the pipe is full, -1 when it is broken.
    private func writeSome(_ buffer: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        while offset < buffer.count {
            let result = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if result > 0 {
                offset += result
            } else if result < 0 && errno == EINTR {
                continue
            } else if result < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return offset
            } else {
                return -1
            }
        }
        return offset
    }

    /// Waits (one-shot) for room in the pipe. Reactor thread only.
    private func armWritable() {
        let events = EPOLLOUT.rawValue | EPOLLONESHOT.rawValue
        let (token, closed) = state.withLock { ($0.token, $0.fdClosed) }
        guard !closed else { return }
        if let token {
            reactor.rearm(token, fd: fd, events: events)
        } else if let token = reactor.watch(fd, events: events, { [self] ready in writable(ready) }) {
            state.withLock { $0.token = token }
        } else {
            abandon()
        }
    }

    /// Writes what the pipe takes now; re-arms while data is left, closes once drained after `close()`. Reactor
    /// thread only; while `flushing` no sender writes, so the queue is this thread's to write.
    private func writable(_ events: UInt32) {
        let broken = events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
        let next = state.withLock { state -> (rearm: Bool, close: Bool, broken: Bool) in
            guard !state.fdClosed else { return (false, false, false) }
            let written = broken ? -1 : state.queue.withUnsafeBytes { writeSome($0) }
            if written < 0 {
                state.closed = true
                state.flushing = false
                state.queue.removeAll()
                return (false, true, true)
            }
            state.queue.removeFirst(written)
            if !state.queue.isEmpty { return (true, false, false) }
            state.flushing = false
            return (false, state.closed, false)
        }
        if next.broken { onBroken() }
        if next.rearm { armWritable() }
        if next.close { closeDescriptor() }
    }

    /// Reactor thread only: the descriptor may be watched, and only this thread may end a watch.
    private func closeDescriptor() {
        let token = state.withLock { state -> UInt64?? in
            guard !state.fdClosed, !state.writing else { return .none }
            state.fdClosed = true
            return .some(state.token)
        }
        guard case .some(let watched) = token else { return }
        if let watched { reactor.unwatch(watched, fd: fd) }
        _ = Glibc.close(fd)
    }
}
