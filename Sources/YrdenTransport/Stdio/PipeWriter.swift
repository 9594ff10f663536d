import CYrdenProcess
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Writes frames to a child's stdin without ever blocking the caller.
///
/// The fast path writes straight from the calling task with a non-blocking `write`. Only when the pipe is full
/// does the rest go to a queue that the ``ProcessReactor`` drains as the pipe becomes writable, so a child that
/// stops reading cannot stall the gateway, frames keep their order, and no thread waits on any one child.
final class PipeWriter: Sendable {
    private struct State {
        var queue: [UInt8] = []
        var flushing = false
        var closed = false
        var fdClosed = false
        var token: UInt64?
    }

    private let fd: Int32
    private let reactor: ProcessReactor
    private let state = Mutex(State())
    /// Beyond this much unsent data the child is considered stuck and sends fail.
    private let maxQueuedBytes: Int

    init(fd: Int32, reactor: ProcessReactor, maxQueuedBytes: Int = 64 << 20) {
        self.fd = fd
        self.reactor = reactor
        self.maxQueuedBytes = maxQueuedBytes
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// What became of a frame given to ``write(_:)``.
    enum Outcome: Equatable {
        case accepted
        /// Nobody reads the pipe any more: the child closed its input or has gone.
        case broken
        /// The pipe was closed here, or the child stopped reading with too much queued.
        case refused
    }

    /// Writes `bytes`, or queues what the pipe does not take now.
    func write(_ bytes: [UInt8]) -> Outcome {
        let outcome: (Outcome, startFlushing: Bool) = state.withLock { state in
            guard !state.closed else { return (.refused, false) }
            if state.flushing {
                guard state.queue.count + bytes.count <= maxQueuedBytes else { return (.refused, false) }
                state.queue.append(contentsOf: bytes)
                return (.accepted, false)
            }
            let written = bytes.withUnsafeBytes { writeSome($0) }
            guard written >= 0 else {
                state.closed = true
                return (.broken, false)
            }
            guard written < bytes.count else { return (.accepted, false) }
            state.queue.append(contentsOf: bytes[written...])
            state.flushing = true
            return (.accepted, true)
        }
        if outcome.startFlushing { reactor.perform { [self] in armWritable() } }
        return outcome.0
    }

    /// Closes stdin once what is queued has been written, which tells a well-behaved server to exit.
    func close() {
        let closeNow = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.closed = true
            return !state.flushing
        }
        if closeNow { reactor.perform { [self] in closeDescriptor() } }
    }

    /// Drops what is queued and closes stdin now: the child is gone. Reactor thread only.
    func abandon() {
        state.withLock { state in
            state.closed = true
            state.queue.removeAll()
        }
        closeDescriptor()
    }

    /// Bytes written, 0 when the pipe is full, -1 when it is broken.
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

    /// Writes what the pipe takes now; re-arms while data is left, closes once drained after `close()`.
    private func writable(_ events: UInt32) {
        let broken = events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
        let next = state.withLock { state -> (rearm: Bool, close: Bool) in
            guard !state.fdClosed else { return (false, false) }
            let written = broken ? -1 : state.queue.withUnsafeBytes { writeSome($0) }
            if written < 0 {
                state.closed = true
                state.queue.removeAll()
                return (false, true)
            }
            state.queue.removeFirst(written)
            if !state.queue.isEmpty { return (true, false) }
            state.flushing = false
            return (false, state.closed)
        }
        if next.rearm { armWritable() }
        if next.close { closeDescriptor() }
    }

    /// Reactor thread only: the descriptor may be watched, and only this thread may end a watch.
    private func closeDescriptor() {
        let token = state.withLock { state -> UInt64?? in
            guard !state.fdClosed else { return .none }
            state.fdClosed = true
            return .some(state.token)
        }
        guard case .some(let watched) = token else { return }
        if let watched { reactor.unwatch(watched, fd: fd) }
        _ = Glibc.close(fd)
    }
}
