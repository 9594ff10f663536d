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

    package init(
        command: String,
        arguments: [String] = [],
        environment: [String: String] = [:],
        workingDirectory: String? = nil
    ) {
        self.command = command
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
    }
}

/// A child process in its own session, with its three standard streams as pipes.
///
/// The child gets a new session (and so its own process group), an empty signal mask and default signal
/// dispositions, so that signals meant for the gateway never reach it and the gateway's ignored SIGPIPE does
/// not leak into it; the whole group can then be signalled at shutdown. A dedicated thread reaps it, so no
/// zombie is left even when nobody asks for the exit status.
final class ChildProcess: Sendable {
    let pid: pid_t
    let stdin: PipeWriter
    let stdoutFD: Int32
    let stderrFD: Int32
    private let exit = ExitSignal()

    /// Variables of the gateway that must never reach an upstream.
    static let withheldEnvironment: Set<String> = ["YRDEN_ADMIN_TOKEN", "YRDEN_SECRET_KEY"]

    private init(pid: pid_t, stdin: Int32, stdout: Int32, stderr: Int32) {
        self.pid = pid
        self.stdin = PipeWriter(fd: stdin)
        self.stdoutFD = stdout
        self.stderrFD = stderr
        NativeThread.detach { [exit] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            exit.fire(ExitStatus(rawWaitStatus: status))
        }
    }

    /// A child that dies while we write to its stdin must give us EPIPE, not kill the gateway with SIGPIPE.
    /// Children get the default disposition back at spawn (POSIX_SPAWN_SETSIGDEF).
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    static func spawn(_ command: StdioCommand) throws(UpstreamError) -> ChildProcess {
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

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinRead, 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutWrite, 1)
        posix_spawn_file_actions_adddup2(&actions, stderrWrite, 2)
        if let directory = command.workingDirectory {
            yrden_spawn_file_actions_addchdir(&actions, directory)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(
            &attributes,
            yrden_spawn_setsid_flag() | Int16(POSIX_SPAWN_SETSIGMASK) | Int16(POSIX_SPAWN_SETSIGDEF)
        )

        let argv = CStringArray([command.command] + command.arguments)
        let envp = CStringArray(mergedEnvironment(command.environment).map { "\($0.key)=\($0.value)" })
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, command.command, &actions, &attributes, argv.pointers, envp.pointers)
        for fd in [stdinRead, stdoutWrite, stderrWrite] { _ = close(fd) }
        guard result == 0 else {
            for fd in [stdinWrite, stdoutRead, stderrRead] { _ = close(fd) }
            let reason = String(cString: strerror(result))
            throw UpstreamError(.process, "cannot start '\(command.command)': \(reason)")
        }
        return ChildProcess(pid: pid, stdin: stdinWrite, stdout: stdoutRead, stderr: stderrRead)
    }

    private static func mergedEnvironment(_ overrides: [String: String]) -> [String: String] {
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if !withheldEnvironment.contains(name) {
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

    /// Sends `signal` to the child's whole process group (it leads a session of its own).
    func signalGroup(_ signal: Int32) {
        guard exit.status == nil else { return }
        _ = kill(-pid, signal)
    }

    /// The MCP shutdown sequence: close stdin, SIGTERM after 2 s, SIGKILL after 5 s more; returns once reaped.
    func terminate() async {
        stdin.close()
        if await waitForExit(timeout: .seconds(2)) { return }
        signalGroup(SIGTERM)
        if await waitForExit(timeout: .seconds(5)) { return }
        signalGroup(SIGKILL)
        _ = await waitForExit(timeout: .seconds(3600))
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
