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
    /// otherwise pass to init and run on. Both are killed here.
    private static func endChildrenAtExit() {
        guard let reactor = runningIfStarted() else { return }
        for pid in reactor.ownedProcessIDs() { _ = kill(-pid, SIGKILL) }
        for pid in childProcessIDs() { _ = kill(pid, SIGKILL) }
    }

    /// Every child of this process, whichever of its threads is the parent: `/proc/self/task/*/children`.
    static func childProcessIDs() -> [pid_t] {
        guard let tasks = opendir("/proc/self/task") else { return [] }
        defer { closedir(tasks) }
        var children: [pid_t] = []
        while let entry = readdir(tasks) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard Int(name) != nil else { continue }
            let text = readSmallFile("/proc/self/task/\(name)/children")
            children += text.split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
        }
        return children
    }

    /// The first 64 KiB of a /proc file, as text.
    private static func readSmallFile(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64 * 1024)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self)
    }
}
