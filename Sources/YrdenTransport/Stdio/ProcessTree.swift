import CYrdenProcess

#if canImport(Glibc)
import Glibc
#endif

/// A stdio server's whole tree of processes, found in `/proc` the moment it is to be signalled.
///
/// A group signal reaches only the helpers that stayed in the server's process group; one that started a
/// session of its own (`setsid`, as daemons and some language servers do) escapes it and would outlive its
/// server, and a crash loop would pile them up. So before a server's group is signalled, its tree is walked:
/// every process of its session or group (members whose parent died are the gateway's, as a subreaper, and
/// are found this way too), and every descendant of those by parent id, whatever its session. Each is
/// signalled through a pidfd opened after it was found and checked again, so a pid reused meanwhile is never
/// hit. One pass over `/proc`, bounded by the number of processes; it runs when a server stops or dies.
enum ProcessTree {
    /// The ids `/proc/PID/stat` gives a process.
    struct Identity: Equatable {
        var parent: pid_t
        var group: pid_t
        var session: pid_t
        /// When the process started (clock ticks since boot): with the pid, what tells it from a later one.
        var started: UInt64
    }

    /// Most processes a tree may have: a fork bomb in a server is cut off here, not walked for ever.
    static let maxMembers = 100_000

    /// Sends `signal` to `leader`'s group and to every other process of its tree (see the type's comment).
    static func signal(_ signal: Int32, treeOf leader: pid_t) {
        let members = self.members(of: leader)
        _ = kill(-leader, signal)
        for (pid, identity) in members where pid != leader {
            let pidfd = yrden_pidfd_open(pid)
            guard pidfd >= 0 else { continue }  // gone already
            // Still the process that was found (a pid reused before the pidfd was opened started later); its
            // parent may have changed since (a helper's parent that died meanwhile), which does not matter.
            if self.identity(of: pid)?.started == identity.started { _ = yrden_pidfd_send_signal(pidfd, signal) }
            _ = close(pidfd)
        }
    }

    /// The processes of `leader`'s tree with their ids, `leader` itself among them while it exists.
    static func members(of leader: pid_t) -> [(pid: pid_t, identity: Identity)] {
        var all: [pid_t: Identity] = [:]
        forEachProcess { pid in
            if let identity = identity(of: pid) { all[pid] = identity }
        }
        return members(of: leader, in: all)
    }

    /// The rule, apart from `/proc`: the members of `leader`'s session and group, then their descendants.
    static func members(of leader: pid_t, in all: [pid_t: Identity]) -> [(pid: pid_t, identity: Identity)] {
        var childrenOf: [pid_t: [pid_t]] = [:]
        var frontier: [pid_t] = []
        for (pid, identity) in all {
            childrenOf[identity.parent, default: []].append(pid)
            if pid == leader || identity.group == leader || identity.session == leader { frontier.append(pid) }
        }
        var found = Set(frontier)
        while let next = frontier.popLast(), found.count < maxMembers {
            for child in childrenOf[next] ?? [] where found.insert(child).inserted { frontier.append(child) }
        }
        return found.compactMap { pid in all[pid].map { (pid, $0) } }
    }

    /// Calls `body` with the pid of every process in `/proc`.
    static func forEachProcess(_ body: (pid_t) -> Void) {
        guard let directory = opendir("/proc") else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let pid = pid_t(name) { body(pid) }
        }
    }

    /// The parent, group, session and start time of `pid`: fields 4 to 6 and 22 of `/proc/PID/stat`, after the
    /// command name in parentheses (which may hold anything); `nil` when the process is gone.
    static func identity(of pid: pid_t) -> Identity? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0, let close = bytes[..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 19 else { return nil }
        let numbers = fields[1...3].map { pid_t(String(decoding: $0, as: UTF8.self)) }
        guard let parent = numbers[0], let group = numbers[1], let session = numbers[2],
            let started = UInt64(String(decoding: fields[19], as: UTF8.self))
        else { return nil }
        return Identity(parent: parent, group: group, session: session, started: started)
    }
}
