import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A helper program run to its end, such as `unzip` unpacking a server's bundle: started as a stdio server is
/// (its own session, the gateway's secrets withheld, its tree killed once it exits), its stdout dropped and the
/// last lines of its stderr kept for the error, killed when it outlives its deadline.
package enum OneShotCommand {
    /// stderr lines kept for the error, the last ones.
    static let keptLines = 8

    /// What the program said on stderr (its last lines) when it failed.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Runs `command` until it exits, or kills its tree after `timeout`; throws unless it exited with status 0.
    package static func run(_ command: StdioCommand, timeout: Duration) async throws(Failure) {
        let reactor: ProcessReactor
        do {
            reactor = try ProcessReactor.running()
        } catch {
            throw Failure(description: error.message)
        }
        let lines = Mutex<[String]>([])
        let events = ChildProcess.Events(
            stdout: { _, _ in true },
            stdoutEnded: {},
            stdinBroken: {},
            stderr: { piece, _ in
                if case .line(let line) = piece {
                    lines.withLock {
                        $0.append(String(decoding: line.prefix(300), as: UTF8.self))
                        if $0.count > keptLines { $0.removeFirst() }
                    }
                }
                return true
            },
            exited: { _ in }
        )
        let limits = ChildProcess.LineLimits(stdout: 4096, stderr: 4096)
        let started = reactor.performAndWait { () -> Result<ChildProcess, UpstreamError> in
            Result { () throws(UpstreamError) in
                try ChildProcess.spawn(command, on: reactor, limits: limits, events: events)
            }
        }
        let process: ChildProcess
        do {
            process = try started.get()
        } catch {
            throw Failure(description: error.message)
        }
        process.stdin.close()
        guard await process.waitForExit(timeout: timeout) else {
            process.signalTree(SIGKILL)
            _ = await process.waitForExit(timeout: .seconds(10))
            throw Failure(description: "\(command.command) did not finish within \(timeout) and was killed")
        }
        let status = process.exitStatus
        guard status?.code == 0 else {
            let said = lines.withLock { $0 }.joined(separator: " | ")
            throw Failure(
                description: "\(command.command) \(status?.description ?? "ended")" + (said.isEmpty ? "" : ": \(said)")
            )
        }
    }
}
