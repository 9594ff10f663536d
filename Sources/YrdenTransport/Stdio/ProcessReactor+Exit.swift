#if canImport(Glibc)
import Glibc
#endif

extension ProcessReactor {
    /// Registers ``endChildrenAtExit()`` to run when the process exits.
    static func endChildrenWhenTheProcessExits() {
        _ = atexit { ProcessReactor.endChildrenAtExit() }
    }

    /// Nothing this process started may outlive it. By the time it exits, a clean shutdown has ended every
    /// server; what is left are servers it never stopped (their parent-death signal would end only them, not
    /// their helpers) and descendants it adopted as a subreaper, which no group signal reaches and which would
    /// otherwise pass to init and run on. Both are killed here, with everything below them.
    private static func endChildrenAtExit() {
        guard let reactor = runningIfStarted() else { return }
        for pid in reactor.ownedProcessIDs() { _ = kill(-pid, SIGKILL) }
        for pid in descendantProcessIDs(of: getpid()) { _ = kill(pid, SIGKILL) }
    }

    /// Every process below `root`, from one pass over `/proc`.
    static func descendantProcessIDs(of root: pid_t) -> [pid_t] {
        guard let directory = opendir("/proc") else { return [] }
        defer { closedir(directory) }
        var childrenOf: [pid_t: [pid_t]] = [:]
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = pid_t(name), let parent = parentProcessID(of: pid) else { continue }
            childrenOf[parent, default: []].append(pid)
        }
        var found: [pid_t] = []
        var frontier = [root]
        while let next = frontier.popLast(), found.count < 100_000 {
            let children = childrenOf[next] ?? []
            found += children
            frontier += children
        }
        return found
    }

    /// The fourth field of `/proc/PID/stat`, after the command name in parentheses (which may hold anything).
    private static func parentProcessID(of pid: pid_t) -> pid_t? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0, let close = bytes[..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1 else { return nil }
        return pid_t(String(decoding: fields[1], as: UTF8.self))
    }
}
