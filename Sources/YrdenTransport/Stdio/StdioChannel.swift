/// An upstream reached through a child process speaking newline-delimited JSON-RPC on stdin/stdout.
///
/// The ``ProcessReactor``'s thread reads the child; stdout lines go to the handler in order from a queue of the
/// channel's own (``FrameDelivery``), stderr lines go to its log.
/// The channel reports `closed` once, at the first sign the child is gone: its exit (noticed from the process,
/// so a descendant holding stdout open changes nothing), or its stdout ending, so calls in flight fail at once
/// rather than waiting for a timeout.
package final class StdioChannel: UpstreamChannel {
    private let process: ChildProcess

    /// Lines longer than this are dropped: no MCP message needs 64 MiB, and memory must stay bounded.
    static let maxLineBytes = 64 << 20
    /// stderr lines are cut to this length before logging.
    static let maxLogLineBytes = 4096
    /// Beyond this much received and not yet handled, reading the child's stdout pauses.
    static let maxPendingBytes = 16 << 20
    /// Frames up to this size are decoded on the reactor thread when none wait before them.
    static let maxInlineBytes = 16 << 10
    /// After stdout ends, how long the exit may take to arrive so that the reason names it.
    static let exitGrace: Duration = .milliseconds(100)

    /// Starts the child and begins reading. Throws when it cannot be started (command not found, …).
    package init(command: StdioCommand, handler: UpstreamChannelHandler) throws(UpstreamError) {
        let reactor = try ProcessReactor.running()
        let delivery = FrameDelivery(maxPendingBytes: Self.maxPendingBytes, maxInlineBytes: Self.maxInlineBytes)
        let closedOnce = OnceFlag()
        // After every frame the child wrote before it ended, so that no answer it gave is failed.
        let reportClosed: @Sendable (String) -> Void = { reason in
            delivery.enqueue {
                if closedOnce.set() { handler.closed(UpstreamError(.process, "the server process \(reason)")) }
            }
        }
        let events = ChildProcess.Events(
            stdout: { piece, resume in
                switch piece {
                case .line(let line):
                    return delivery.enqueue(bytes: line.count, resume: resume) { handler.frame(line) }
                case .oversized:
                    handler.log("dropped a stdout line longer than \(Self.maxLineBytes) bytes")
                    return true
                }
            },
            stdoutEnded: {
                reactor.after(Self.exitGrace) { reportClosed("closed its stdout") }
            },
            // Like the end of its stdout: the channel closes after the exit grace (naming the exit if it comes
            // first), and the requests written meanwhile fail with it.
            stdinBroken: {
                reactor.after(Self.exitGrace) { reportClosed("closed its input") }
            },
            stderr: { piece, _ in
                switch piece {
                case .line(let line): handler.log(String(decoding: line, as: UTF8.self))
                case .oversized: handler.log("(a stderr line longer than \(Self.maxLogLineBytes) bytes was cut)")
                }
                return true
            },
            exited: { status in reportClosed(status.description) }
        )
        let limits = ChildProcess.LineLimits(stdout: Self.maxLineBytes, stderr: Self.maxLogLineBytes)
        let started = reactor.performAndWait { () -> Result<ChildProcess, UpstreamError> in
            Result { () throws(UpstreamError) in
                try ChildProcess.spawn(command, on: reactor, limits: limits, events: events)
            }
        }
        process = try started.get()
    }

    package var processID: Int32 { process.pid }

    package func send(_ frame: [UInt8]) throws(UpstreamError) {
        switch process.stdin.write(frame, terminator: 0x0A) {
        case .accepted:
            return
        case .refused:
            if let status = process.exitStatus { throw UpstreamError(.process, "the server process \(status)") }
            throw UpstreamError(.process, "the server process is not reading its input")
        }
    }

    package func close() async {
        await process.terminate()
    }
}
