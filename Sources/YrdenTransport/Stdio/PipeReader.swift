import CYrdenProcess
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Reads one of a child's output pipes on the reactor thread and hands over each complete line.
///
/// The pipe is non-blocking and watched by the ``ProcessReactor``, so a reader costs no thread. The receiver
/// may ask it to pause (it is not keeping up) and resume it later. It ends at end of file, or when the child has
/// exited: then what the child wrote is read and the pipe closed at once, since a descendant that inherited the
/// write end could keep it open for ever.
final class PipeReader: Sendable {
    /// Called on the reactor thread with each piece; returns `false` to pause reading until `resume` is called
    /// (from any thread).
    typealias Receiver = @Sendable (_ piece: LineSplitter.Piece, _ resume: @escaping @Sendable () -> Void) -> Bool

    private struct State {
        var splitter: LineSplitter
        var token: UInt64?
        var closed = false
        var paused = false
    }

    private let fd: Int32
    private let reactor: ProcessReactor
    private let state: Mutex<State>
    private let onPiece: Receiver
    private let onEnd: @Sendable () -> Void

    /// At most this much is read per wake-up, so that one chatty child cannot starve the others.
    private static let chunkBytes = 64 * 1024
    private static let chunksPerWakeup = 16

    /// Starts reading `fd`; reactor thread only. `onEnd` is called once, at end of file (not on `finish()`).
    init(
        fd: Int32,
        maxLineBytes: Int,
        reactor: ProcessReactor,
        onPiece: @escaping Receiver,
        onEnd: @escaping @Sendable () -> Void
    ) {
        self.fd = fd
        self.reactor = reactor
        self.state = Mutex(State(splitter: LineSplitter(maxLineBytes: maxLineBytes)))
        self.onPiece = onPiece
        self.onEnd = onEnd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let token = reactor.watch(fd, events: EPOLLIN.rawValue) { [self] _ in
            if readAvailable(limit: Self.chunksPerWakeup) == .ended {
                closePipe()
                onEnd()
            }
        }
        state.withLock { $0.token = token }
        if token == nil {
            closePipe()
            onEnd()
        }
    }

    /// Reads what is in the pipe now, then closes it; reactor thread only. Bounded: a pipe holds at most
    /// 1 MiB unless raised, and a descendant that keeps writing must not keep this thread here.
    func finish() {
        guard !state.withLock({ $0.closed }) else { return }
        _ = readAvailable(limit: Self.chunksPerWakeup * 4)
        closePipe()
    }

    private enum Outcome { case more, drained, ended }

    private func readAvailable(limit: Int) -> Outcome {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.chunkBytes) { buffer in
            for _ in 0..<limit {
                let count = read(fd, buffer.baseAddress!, Self.chunkBytes)
                if count > 0 {
                    guard deliver(UnsafeBufferPointer(rebasing: buffer[..<count])) else {
                        pause()
                        return .drained
                    }
                } else if count < 0 && errno == EINTR {
                    continue
                } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    return .drained
                } else {
                    return .ended
                }
            }
            return .more
        }
    }

    /// Splits under the lock, hands the lines over outside it; `false` when the receiver asked for a pause.
    private func deliver(_ chunk: UnsafeBufferPointer<UInt8>) -> Bool {
        var pieces: [LineSplitter.Piece] = []
        state.withLock { state in
            state.splitter.feed(chunk) { pieces.append($0) }
        }
        let resume: @Sendable () -> Void = { [self] in reactor.perform { [self] in resumeReading() } }
        var keepReading = true
        for piece in pieces where !onPiece(piece, resume) { keepReading = false }
        return keepReading
    }

    /// Stops waiting for input until ``resumeReading()``. Reactor thread only.
    private func pause() {
        let token = state.withLock { state -> UInt64? in
            guard !state.closed, !state.paused else { return nil }
            state.paused = true
            return state.token
        }
        if let token { reactor.rearm(token, fd: fd, events: 0) }
    }

    private func resumeReading() {
        let token = state.withLock { state -> UInt64? in
            guard !state.closed, state.paused else { return nil }
            state.paused = false
            return state.token
        }
        if let token { reactor.rearm(token, fd: fd, events: EPOLLIN.rawValue) }
    }

    private func closePipe() {
        let token = state.withLock { state -> UInt64?? in
            guard !state.closed else { return .none }
            state.closed = true
            return .some(state.token)
        }
        guard case .some(let watched) = token else { return }
        if let watched { reactor.unwatch(watched, fd: fd) }
        _ = close(fd)
    }
}
