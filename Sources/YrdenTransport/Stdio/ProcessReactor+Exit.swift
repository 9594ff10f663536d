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
        var childrenOf: [pid_t: [pid_t]] = [:]
        ProcessTree.forEachProcess { pid in
            if let parent = ProcessTree.identity(of: pid)?.parent { childrenOf[parent, default: []].append(pid) }
        }
        var found: [pid_t] = []
        var frontier = [root]
        while let next = frontier.popLast(), found.count < ProcessTree.maxMembers {
            let children = childrenOf[next] ?? []
            found += children
            frontier += children
        }
        return found
    }
}
