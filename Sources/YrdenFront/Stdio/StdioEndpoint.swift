import YrdenEngine
import YrdenLineIO
import YrdenProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The aggregate served over stdio (`yrden stdio`), for hosts that can only launch a command.
///
/// One client, one session: `initialize` opens it, requests run concurrently (so a slow tool does not hold
/// up the rest), progress and list changes are written as notifications between responses, and the end of
/// stdin ends the session. stdout carries MCP messages only; logs go to stderr.
package struct StdioEndpoint: Sendable {
    let gateway: Gateway
    /// Everything, or a profile's view (`yrden stdio --profile`).
    let scope: CatalogScope

    package init(gateway: Gateway, scope: CatalogScope = .gateway) {
        self.gateway = gateway
        self.scope = scope
    }

    /// Serves until stdin closes, then ends the session and returns.
    package func run() async {
        let stdout = LineWriter(fileDescriptor: STDOUT_FILENO)
        let (lines, feed) = LineStream.makeStream()
        do {
            try DetachedThread.start(name: "yrden-stdio-in") {
                LineReader.readLines(fileDescriptor: STDIN_FILENO, oversized: { feed.yield(.oversized(bytes: $0)) }) {
                    feed.yield(.line(Array($0)))
                }
                feed.finish()
            }
        } catch {
            LineWriter.log("yrden: cannot read stdin: \(error)")
            return
        }
        let connection = MessageConnection(
            gateway: gateway,
            scope: scope,
            output: { stdout.write(line: $0.serialized()) }
        )
        await connection.serve(lines)
    }
}
