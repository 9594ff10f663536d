#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit, which bounds how many connections can be held at once.
///
/// Every connection is a descriptor, and the usual soft limit (1,024) would let a single client fill the server
/// with slow connections. The hard limit is what the administrator allows, so a server raises its soft limit to it
/// at start, then sizes its connection limit to leave room for everything else the process opens.
package enum OpenFileLimit {
    /// The soft and hard limits before and after `raiseToHardLimit`.
    package struct Change: Sendable, Equatable {
        package let before: Int
        package let after: Int
        package let hard: Int
    }

    /// Raises the soft limit to the hard limit. Failure (a hard limit the kernel refuses, such as unlimited on
    /// some systems) leaves the soft limit as it was; `after` says what holds.
    @discardableResult
    package static func raiseToHardLimit() -> Change {
        var limits = rlimit()
        guard getrlimit(resourceKind, &limits) == 0 else { return Change(before: 0, after: 0, hard: 0) }
        let before = limits.rlim_cur
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            _ = setrlimit(resourceKind, &raised)
        }
        return Change(before: clamp(before), after: current, hard: clamp(limits.rlim_max))
    }

    /// The soft limit in force now.
    package static var current: Int {
        var limits = rlimit()
        guard getrlimit(resourceKind, &limits) == 0 else { return 1024 }
        return clamp(limits.rlim_cur)
    }

    /// The most connections a server may hold with `openFiles` descriptors allowed: a quarter of them (at most
    /// 1,024) stay free for upstream pipes and sockets, the listen socket and files, and never fewer than 64.
    package static func connectionCapacity(openFiles: Int) -> Int {
        let reserve = min(1024, openFiles / 4)
        return max(64, openFiles - reserve)
    }

    private static func clamp(_ value: rlim_t) -> Int {
        value >= rlim_t(Int.max) ? .max : Int(value)
    }

    #if canImport(Glibc)
    private static let resourceKind = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resourceKind = RLIMIT_NOFILE
    #endif
}
