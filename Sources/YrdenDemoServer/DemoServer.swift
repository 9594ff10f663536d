import YrdenLineIO
import YrdenProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `yrden demo-server`: a small, fast MCP server over stdio, used by the embedded default config, by tests and
/// by benchmarks.
///
/// The protocol logic is ``DemoServerCore``; this is the thin shell around it. A dedicated thread reads stdin
/// with blocking reads, splits it on newlines and answers every instant request inline, on that thread. Only
/// `slow` tool calls run as child tasks of ``run()``. Every outgoing message is one line written with
/// `write(2)` under a lock, so lines from the reader thread and from slow calls never interleave.
package enum DemoServer {
    /// Serves MCP over stdin/stdout until stdin closes, then cancels any `slow` call still running and returns
    /// (the CLI then exits with status 0). Logs only to stderr.
    package static func run() async {
        // A client that goes away must not kill the server mid-write; failed writes are dropped instead.
        signal(SIGPIPE, SIG_IGN)
        let stdout = LineWriter(fileDescriptor: STDOUT_FILENO)
        let core = DemoServerCore { message in stdout.write(line: message.serialized()) }
        LineWriter.log("yrden demo-server ready")
        do {
            try DetachedThread.start(name: "yrden-demo-stdin") {
                LineReader.readLines(fileDescriptor: STDIN_FILENO) { line in
                    if let reply = core.handle(line: line) { stdout.write(line: reply.serialized()) }
                }
                core.finishInput()
            }
        } catch {
            LineWriter.log("yrden demo-server: cannot read stdin: \(error)")
            return
        }
        await core.runSlowCalls()
    }
}
