import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Writes frames to a child's stdin without ever blocking the caller.
///
/// The fast path writes straight from the calling task with a non-blocking `write`. Only when the pipe is full
/// does the rest go to a queue that a dedicated thread drains with `poll`, so a child that stops reading
/// cannot stall the gateway, and frames keep their order.
final class PipeWriter: Sendable {
    private struct State {
        var queue: [UInt8] = []
        var flushing = false
        var closed = false
        var fdClosed = false
    }

    private let fd: Int32
    private let state = Mutex(State())
    private let wakeup = DispatchSemaphore(value: 0)
    /// Beyond this much unsent data the child is considered stuck and sends fail.
    private let maxQueuedBytes: Int

    init(fd: Int32, maxQueuedBytes: Int = 64 << 20) {
        self.fd = fd
        self.maxQueuedBytes = maxQueuedBytes
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        NativeThread.detach { [self] in drainLoop() }
    }

    /// Queues `bytes`; returns `false` when the pipe is closed or the child has stopped reading.
    func write(_ bytes: [UInt8]) -> Bool {
        let wake: Bool? = state.withLock { state in
            guard !state.closed else { return nil }
            if state.flushing || !state.queue.isEmpty {
                guard state.queue.count + bytes.count <= maxQueuedBytes else { return nil }
                state.queue.append(contentsOf: bytes)
                return false
            }
            let written = bytes.withUnsafeBytes { writeSome($0) }
            guard written >= 0 else { return nil }
            guard written < bytes.count else { return false }
            state.queue.append(contentsOf: bytes[written...])
            state.flushing = true
            return true
        }
        guard let wake else { return false }
        if wake { wakeup.signal() }
        return true
    }

    /// Closes stdin once what is queued has been written, which tells a well-behaved server to exit.
    func close() {
        let closeNow = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.closed = true
            if state.flushing { return false }
            state.fdClosed = true
            return true
        }
        if closeNow { _ = Glibc.close(fd) }
        wakeup.signal()
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

    private func drainLoop() {
        while true {
            wakeup.wait()
            while true {
                let (chunk, closed) = state.withLock { state -> ([UInt8], Bool) in
                    if state.queue.isEmpty {
                        state.flushing = false
                        return ([], state.closed)
                    }
                    let chunk = state.queue
                    state.queue.removeAll(keepingCapacity: true)
                    return (chunk, state.closed)
                }
                if chunk.isEmpty {
                    if closed {
                        let closeNow = state.withLock { state -> Bool in
                            defer { state.fdClosed = true }
                            return !state.fdClosed
                        }
                        if closeNow { _ = Glibc.close(fd) }
                        return
                    }
                    break
                }
                if !writeFully(chunk) {
                    state.withLock { state in
                        state.closed = true
                        state.queue.removeAll()
                    }
                }
            }
        }
    }

    /// Blocks this thread (never a task) until `chunk` is written or the pipe breaks.
    private func writeFully(_ chunk: [UInt8]) -> Bool {
        chunk.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = writeSome(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                if written < 0 { return false }
                offset += written
                if offset < buffer.count {
                    var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&descriptor, 1, 1000)
                    if descriptor.revents & Int16(POLLERR | POLLHUP) != 0 { return false }
                }
            }
            return true
        }
    }
}
