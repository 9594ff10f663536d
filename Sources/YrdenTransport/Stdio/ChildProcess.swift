import CYrdenProcess
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What to start for a stdio upstream.
package struct StdioCommand: Sendable, Hashable {
    package var command: String
    package var arguments: [String]
    /// Added to (and overriding) the gateway's own environment, minus the gateway's secrets.
    package var environment: [String: String]
    package var workingDirectory: String?
    /// Variables of the gateway's environment the child does not inherit, besides
    /// ``ChildProcess/withheldEnvironment``: those the gateway's own secrets come from. `environment` may
    /// still pass one on.
    package var withheldEnvironment: Set<String>

    package init(
        command: String,
        arguments: [String] = [],
        environment: [String: String] = [:],
        workingDirectory: String? = nil,
        withheldEnvironment: Set<String> = []
    ) {
        self.command = command
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.withheldEnvironment = withheldEnvironment
    }
}

/// A child process in its own session, with its three standard streams as pipes.
///
/// The child gets a new session (and so its own process group), an empty signal mask, default signal
/// dispositions and SIGKILL as its parent-death signal: signals meant for the gateway never reach it, the
/// gateway's ignored SIGPIPE does not leak into it, and a gateway killed outright does not leave it running.
/// Its exit is noticed from the process itself (a pidfd on the ``ProcessReactor``), never from its pipes, which
/// a descendant may hold open. Once it has exited, what is left of its tree (``ProcessTree``: its group, its
/// session, and every descendant of those, helpers that left the group included) is killed before it is
/// reaped, while its ids cannot be reused yet: a server's helpers never outlive it.
final class ChildProcess: Sendable {
    /// What the child writes and when it ends, delivered on the reactor thread.
    struct Events: Sendable {
        var stdout: PipeReader.Receiver
        /// stdout reached end of file while the child may still run.
        var stdoutEnded: @Sendable () -> Void
        /// The child stopped reading its stdin (closed it or died) while frames were written to it.
        var stdinBroken: @Sendable () -> Void
        var stderr: PipeReader.Receiver
        /// The child has been reaped; what it wrote before has been delivered.
        var exited: @Sendable (ExitStatus) -> Void
    }

    /// Longest stdout and stderr lines passed on; longer ones are dropped (stdout) or cut (stderr).
    struct LineLimits: Sendable {
        var stdout: Int
        var stderr: Int
    }

    let pid: pid_t
    let stdin: PipeWriter
    private let pidfd: Int32
    private let reactor: ProcessReactor
    private let stdout: PipeReader
    private let stderr: PipeReader
    private let exited: @Sendable (ExitStatus) -> Void
    private let pidfdWatch = Mutex<UInt64?>(nil)
    private let exit = ExitSignal()

    /// Variables of the gateway that must never reach an upstream.
    static let withheldEnvironment: Set<String> = ["YRDEN_ADMIN_TOKEN", "YRDEN_SECRET_KEY"]

    /// Reactor thread only.
    private init(
        pid: pid_t,
        pidfd: Int32,
        pipes: (stdin: Int32, stdout: Int32, stderr: Int32),
        reactor: ProcessReactor,
        limits: LineLimits,
        events: Events
    ) {
        self.pid = pid
        self.pidfd = pidfd
        self.reactor = reactor
        self.exited = events.exited
        stdin = PipeWriter(fd: pipes.stdin, reactor: reactor, onBroken: events.stdinBroken)
        stdout = PipeReader(
            fd: pipes.stdout,
            maxLineBytes: limits.stdout,
            reactor: reactor,
            onPiece: events.stdout,
            onEnd: events.stdoutEnded
        )
        stderr = PipeReader(
            fd: pipes.stderr,
            maxLineBytes: limits.stderr,
            reactor: reactor,
            onPiece: events.stderr,
            onEnd: {}
        )
        // Without the watch the child is still reaped, by the reactor's periodic sweep.
        let watch = reactor.watch(pidfd, events: EPOLLIN.rawValue) { [self] _ in reap() }
        pidfdWatch.withLock { $0 = watch }
        reactor.own(pid) { [self] in reap() }
    }

    /// A child that dies while we write to its stdin must give us EPIPE, not kill the gateway with SIGPIPE.
    /// Children get the default disposition back at spawn.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Starts `command`. Reactor thread only: a child's parent-death signal fires when the thread that forked
    /// it ends, and the reactor thread lives as long as the process.
    static func spawn(
        _ command: StdioCommand,
        on reactor: ProcessReactor,
        limits: LineLimits,
        events: Events
    ) throws(UpstreamError) -> ChildProcess {
        Self.ignoreBrokenPipes
        var pipes: [Int32] = Array(repeating: -1, count: 6)
        for index in stride(from: 0, to: 6, by: 2) {
            let made = pipes.withUnsafeMutableBufferPointer { yrden_pipe_cloexec($0.baseAddress! + index) }
            guard made == 0 else {
                pipes.filter { $0 >= 0 }.forEach { _ = close($0) }
                throw UpstreamError(.process, "cannot create pipes: \(String(cString: strerror(errno)))")
            }
        }
        let (stdinRead, stdinWrite) = (pipes[0], pipes[1])
        let (stdoutRead, stdoutWrite) = (pipes[2], pipes[3])
        let (stderrRead, stderrWrite) = (pipes[4], pipes[5])

        let argv = CStringArray([command.command] + command.arguments)
        let inherited = mergedEnvironment(command.environment, withholding: command.withheldEnvironment)
        let envp = CStringArray(inherited.map { "\($0.key)=\($0.value)" })
        var pid: pid_t = 0
        let result = withOptionalCString(command.workingDirectory) { directory in
            yrden_spawn(
                command.command,
                argv.pointers,
                envp.pointers,
                directory,
                stdinRead,
                stdoutWrite,
                stderrWrite,
                SIGKILL,
                &pid
            )
        }
        for fd in [stdinRead, stdoutWrite, stderrWrite] { _ = close(fd) }
        let pidfd = result == 0 ? yrden_pidfd_open(pid) : -1
        guard result == 0, pidfd >= 0 else {
            let reason = String(cString: strerror(result == 0 ? errno : result))
            if result == 0 {
                _ = kill(-pid, SIGKILL)
                while waitpid(pid, nil, 0) < 0 && errno == EINTR {}
            }
            for fd in [stdinWrite, stdoutRead, stderrRead] { _ = close(fd) }
            throw UpstreamError(.process, "cannot start '\(command.command)': \(reason)")
        }
        return ChildProcess(
            pid: pid,
            pidfd: pidfd,
            pipes: (stdinWrite, stdoutRead, stderrRead),
            reactor: reactor,
            limits: limits,
            events: events
        )
    }

    private static func mergedEnvironment(
        _ overrides: [String: String],
        withholding extra: Set<String>
    ) -> [String: String] {
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if !withheldEnvironment.contains(name), !extra.contains(name) {
                    environment[name] = String(text[text.index(after: equals)...])
                }
            }
            entry += 1
        }
        environment.merge(overrides) { _, new in new }
        return environment
    }

    /// The exit status, once the child has been reaped; `nil` while it runs.
    var exitStatus: ExitStatus? { exit.status }

    /// Waits until the child has been reaped, or `timeout` passes; returns whether it exited.
    func waitForExit(timeout: Duration) async -> Bool {
        await exit.wait(timeout: timeout)
    }

    /// Sends `signal` to the child's whole tree (``ProcessTree``: its process group, as it leads a session of
    /// its own, and every helper below it, those that left the group included), whether or not the child
    /// itself still runs. On the reactor thread, which alone reaps: once the leader is reaped its ids may be
    /// someone else's, and its tree was killed just before.
    func signalTree(_ signal: Int32) {
        reactor.perform { [self] in
            if exit.status == nil { ProcessTree.signal(signal, treeOf: pid) }
        }
    }

    /// The MCP shutdown sequence: close stdin, SIGTERM after 2 s, SIGKILL after 5 s more; returns once reaped.
    func terminate() async {
        stdin.close()
        if await waitForExit(timeout: .seconds(2)) { return }
        signalTree(SIGTERM)
        if await waitForExit(timeout: .seconds(5)) { return }
        signalTree(SIGKILL)
        _ = await waitForExit(timeout: .seconds(30))
    }

    /// The child has exited (its pidfd is readable, or the orphan sweep met it): kill what is left of its
    /// tree, reap it, take in what it wrote, and tell the owner. Reactor thread only.
    private func reap() {
        guard exit.status == nil, yrden_pidfd_wait(pidfd, 0, nil) == 1 else { return }
        ProcessTree.signal(SIGKILL, treeOf: pid)
        var raw: Int32 = 0
        guard yrden_pidfd_wait(pidfd, 1, &raw) == 1 else { return }
        if let watch = pidfdWatch.withLock({ $0 }) { reactor.unwatch(watch, fd: pidfd) }
        _ = close(pidfd)
        reactor.disown(pid)
        let status = ExitStatus(rawWaitStatus: raw)
        exit.fire(status)  // before stdin closes: a send refused from now on can name the exit
        stdin.abandon()
        stdout.finish()
        stderr.finish()
        exited(status)
        reactor.sweepOrphans()
        reactor.sweepOrphansSoon()
    }
}

/// How a child ended, decoded from a `waitpid` status.
struct ExitStatus: Sendable, Hashable, CustomStringConvertible {
    var code: Int32?
    var signal: Int32?

    init(rawWaitStatus status: Int32) {
        if status & 0x7F == 0 {
            code = (status >> 8) & 0xFF
        } else {
            signal = status & 0x7F
        }
    }

    var description: String {
        if let code { return "exited with status \(code)" }
        return "was killed by signal \(signal ?? 0)"
    }
}

/// NUL-terminated C strings for `argv`/`envp`, freed when this goes away.
private final class CStringArray {
    let pointers: [UnsafeMutablePointer<CChar>?]

    init(_ strings: [String]) {
        pointers = strings.map { strdup($0) } + [nil]
    }

    deinit {
        pointers.forEach { free($0) }
    }
}

/// Calls `body` with `string` as a C string, or with `nil`.
private func withOptionalCString<Result>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
