#if canImport(Glibc)
import Glibc
#endif

/// An upstream reached through a child process speaking newline-delimited JSON-RPC on stdin/stdout.
///
/// stdout is read by a thread of its own and each line handed to the handler; stderr lines go to the
/// handler's log. The channel reports `closed` once, at the first sign the child is gone (stdout ends or the
/// process exits), so calls in flight fail at once rather than waiting for a timeout.
package final class StdioChannel: UpstreamChannel {
    private let process: ChildProcess
    private let closedOnce: OnceFlag

    /// Lines longer than this are dropped: no MCP message needs 64 MiB, and memory must stay bounded.
    static let maxLineBytes = 64 << 20
    /// stderr lines are cut to this length before logging.
    static let maxLogLineBytes = 4096

    /// Starts the child and begins reading. Throws when it cannot be started (command not found, …).
    package init(command: StdioCommand, handler: UpstreamChannelHandler) throws(UpstreamError) {
        let process = try ChildProcess.spawn(command)
        let closedOnce = OnceFlag()
        self.process = process
        self.closedOnce = closedOnce
        let reportClosed: @Sendable (UpstreamError) -> Void = { error in
            if closedOnce.set() { handler.closed(error) }
        }
        NativeThread.detach {
            Self.readStdout(process: process, handler: handler)
            // stdout ended: give the exit status a moment to arrive so the reason names it.
            var reason = "closed its stdout"
            for _ in 0..<20 where process.exitStatus == nil { usleep(5_000) }
            if let status = process.exitStatus { reason = status.description }
            reportClosed(UpstreamError(.process, "the server process \(reason)"))
        }
        NativeThread.detach {
            Self.readStderr(process: process, handler: handler)
        }
    }

    package var processID: Int32 { process.pid }

    package func send(_ frame: [UInt8]) throws(UpstreamError) {
        var line = frame
        line.append(0x0A)
        guard process.stdin.write(line) else {
            throw UpstreamError(.process, "the server process is not reading its input")
        }
    }

    package func close() async {
        await process.terminate()
    }

    private static func readStdout(process: ChildProcess, handler: UpstreamChannelHandler) {
        var splitter = LineSplitter(maxLineBytes: maxLineBytes)
        readLoop(fd: process.stdoutFD) { chunk in
            splitter.feed(chunk) { piece in
                switch piece {
                case .line(let line): handler.frame(line)
                case .oversized: handler.log("dropped a stdout line longer than \(maxLineBytes) bytes")
                }
            }
        }
    }

    private static func readStderr(process: ChildProcess, handler: UpstreamChannelHandler) {
        var splitter = LineSplitter(maxLineBytes: maxLogLineBytes)
        readLoop(fd: process.stderrFD) { chunk in
            splitter.feed(chunk) { piece in
                switch piece {
                case .line(let line): handler.log(String(decoding: line, as: UTF8.self))
                case .oversized: handler.log("(a stderr line longer than \(maxLogLineBytes) bytes was cut)")
                }
            }
        }
    }

    /// Blocking reads until end of file; runs only on a ``NativeThread``.
    private static func readLoop(fd: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        let capacity = 64 * 1024
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer {
            buffer.deallocate()
            _ = Glibc.close(fd)
        }
        while true {
            let count = read(fd, buffer, capacity)
            if count > 0 {
                body(UnsafeBufferPointer(start: buffer, count: count))
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}
