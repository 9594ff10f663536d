import CYrdenProcess
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The reactor as the process's subreaper: children an owner reaps are recorded, and every other exited child
/// (a server's descendant reparented to this process) is reaped by the sweep, so no zombie is left behind.
extension ProcessReactor {
    /// Records that `pid` is reaped by its owner through `reap`, which the orphan sweep calls when it meets
    /// the pid first. Reactor thread only.
    func own(_ pid: pid_t, reap: @escaping Job) {
        owners.withLock { $0[pid] = reap }
    }

    /// The children that have an owner and have not been reaped yet.
    func ownedProcessIDs() -> [pid_t] {
        owners.withLock { Array($0.keys) }
    }

    /// The owner has reaped `pid`. Reactor thread only.
    func disown(_ pid: pid_t) {
        _ = owners.withLock { $0.removeValue(forKey: pid) }
    }

    /// Reaps every exited child no owner claims: descendants of servers that were reparented to this process.
    /// An exited child that has an owner is handed to it, so its exit status still reaches whoever waits for it.
    func sweepOrphans() {
        for _ in 0..<4096 {
            let pid = yrden_peek_exited_child()
            guard pid > 0 else { return }
            if let reap = owners.withLock({ $0[pid] }) {
                reap()
                disown(pid)
            } else {
                _ = yrden_reap_exited(pid)
            }
        }
    }

    /// Sweeps again shortly: the helpers of a group just killed die a moment later, and those adopted then
    /// would otherwise wait for the periodic sweep as zombies.
    func sweepOrphansSoon() {
        for delay in Self.followUpSweeps { after(delay) { [self] in sweepOrphans() } }
    }

    private static let followUpSweeps: [Duration] = [.milliseconds(20), .milliseconds(200)]

    func periodicSweep() {
        sweepOrphans()
        after(Self.sweepInterval) { [self] in periodicSweep() }
    }
}
