import CoreMetrics
import Dispatch
import Synchronization
import YrdenLineIO

#if canImport(Glibc)
import Glibc
#endif

/// Log lines on their way to a file descriptor (stderr), written by a thread of their own.
///
/// A logger is called on the event loop that serves every client and stdio child. Written there, a line to a
/// stderr pipe that its reader does not drain (a stopped log collector, a terminal on hold) would block the
/// loop, and with it the whole gateway, as soon as the pipe's 64 KiB are full. Here a line is only queued;
/// the writer thread blocks instead. The queue holds at most ``maxLines`` lines and ``maxBytes``: a line that
/// finds it full is dropped and counted (`yrden_log_lines_dropped_total`), and the writer says how many were
/// dropped once it catches up.
final class LogLineQueue: Sendable {
    static let maxLines = 4096
    static let maxBytes = 4 << 20
    static let droppedMetric = "yrden_log_lines_dropped_total"

    private struct State {
        var lines: [[UInt8]] = []
        var bytes = 0
        /// Dropped since the writer last said so.
        var dropped = 0
        /// Lines taken by the writer and not yet written.
        var writing = false
        /// No writer thread could be started: callers write their own lines, as before.
        var direct = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let fd: Int32

    /// Starts the writer thread of `fd`; without a thread (the process at its limit), lines are written by
    /// their callers as before.
    init(fd: Int32) {
        self.fd = fd
        do {
            try DetachedThread.start(name: "yrden-log", stackBytes: 64 * 1024) { [self] in
                while true { writeNext() }
            }
        } catch {
            state.withLock { $0.direct = true }
        }
    }

    /// Queues `line` (with its line break), or drops it when the queue is full.
    func append(_ line: [UInt8]) {
        enum Step {
            case queued(wakeWriter: Bool)
            case dropped, writeHere
        }
        let step = state.withLock { state -> Step in
            if state.direct { return .writeHere }
            guard state.lines.count < Self.maxLines, state.bytes + line.count <= Self.maxBytes else {
                state.dropped += 1
                return .dropped
            }
            let wasIdle = state.lines.isEmpty && !state.writing
            state.lines.append(line)
            state.bytes += line.count
            return .queued(wakeWriter: wasIdle)
        }
        switch step {
        case .queued(let wakeWriter): if wakeWriter { wake.signal() }
        case .dropped: Counter(label: Self.droppedMetric).increment()
        case .writeHere: Self.write(line, to: fd)
        }
    }

    /// Waits up to `deadline` for the lines queued so far to be written: at exit, so the last words (a
    /// failure's reason) are not lost.
    func flush(within deadline: Duration = .seconds(2)) {
        let end = ContinuousClock.now + deadline
        while !state.withLock({ $0.lines.isEmpty && !$0.writing }), ContinuousClock.now < end {
            usleep(1_000)
        }
    }

    /// Lines waiting now, for tests.
    var waiting: Int { state.withLock { $0.lines.count } }

    /// One pass of the writer: waits for lines, writes them all in one go, then says what was dropped.
    private func writeNext() {
        var batch = state.withLock { state -> [[UInt8]] in
            let lines = state.lines
            state.lines.removeAll(keepingCapacity: true)
            state.bytes = 0
            state.writing = !lines.isEmpty
            return lines
        }
        if batch.isEmpty {
            wake.wait()
            return
        }
        var bytes = Array(batch.joined())
        batch.removeAll()
        Self.write(bytes, to: fd)
        let dropped = state.withLock { state -> Int in
            defer { state.dropped = 0 }
            state.writing = false
            return state.dropped
        }
        if dropped > 0 {
            bytes = Array("yrden: \(dropped) log lines dropped: stderr was not read fast enough\n".utf8)
            Self.write(bytes, to: fd)
        }
    }

    /// All of `bytes` to `fd`, retrying what an interrupt or a short write left; gives up on other errors (a
    /// closed stderr has no one to tell).
    static func write(_ bytes: [UInt8], to fd: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

/// A `TextOutputStream` for swift-log's `StreamLogHandler` that queues each line instead of writing it.
struct QueuedLogStream: TextOutputStream, Sendable {
    let queue: LogLineQueue

    mutating func write(_ string: String) {
        queue.append(Array(string.utf8))
    }
}
