import Logging
import ServiceLifecycle
import UnixSignals
import YrdenEngine

#if canImport(Glibc)
import Glibc
#endif

/// Applies the config file again when an operator sends SIGHUP or the file changes on disk: only servers
/// whose entry changed restart. A file that does not validate is refused with its problems in the log, and
/// the gateway keeps running what it had. A reload takes its turn with the admin API's changes, so the two
/// never interleave.
///
/// Changes are seen through inotify on the file's directory, a short while after the last event of a burst
/// (an editor's write, rename and `chmod` come together); where inotify is unavailable or unreliable (network
/// and FUSE mounts, some container bind mounts) the file's identity is polled instead. The log says which.
package struct ConfigReloadService: Service {
    let store: ConfigStore
    let logger: Logger
    /// How often the file's identity (inode, size, modification time) is checked when it cannot be watched.
    static let pollInterval: Duration = .seconds(2)
    /// How long after a change the file is read, so the rest of an editor's burst of events is absorbed.
    static let settleDelay: Duration = .milliseconds(150)
    /// How soon a reload that could not take its turn (other changes held the config) is tried again.
    static let retryDelay: Duration = .seconds(1)

    package init(store: ConfigStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    package func run() async throws {
        guard let path = store.path else { return }
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in signals { await reload(because: "SIGHUP") }
                }
                group.addTask { await watch(path) }
            }
        }
    }

    /// Follows the file until cancelled: by inotify while it can, then by polling. Once the watch is in
    /// place the file is checked against what the store loaded, so an edit made before that is applied too.
    private func watch(_ path: String) async {
        var seen: FileIdentity?
        let (directory, name) = Self.split(path)
        do {
            // A symbolic link's target may change without an event naming the link: then every entry counts.
            let names: Set<String>? = Self.isSymbolicLink(path) ? nil : [name]
            let events = try DirectoryEvents.watch(directory, names: names)
            logger.info("watching the config file", metadata: ["path": "\(path)", "by": "inotify"])
            await catchUp(path, seen: &seen)
            for await _ in events {
                try? await Task.sleep(for: Self.settleDelay)
                await catchUp(path, seen: &seen)
            }
            if Task.isCancelled { return }
            logger.warning(
                "the config file's directory can no longer be watched; polling instead",
                metadata: ["path": "\(path)", "every": "\(Self.pollInterval)"]
            )
        } catch {
            logger.info(
                "watching the config file",
                metadata: ["path": "\(path)", "by": "polling", "every": "\(Self.pollInterval)", "why": "\(error)"]
            )
            await catchUp(path, seen: &seen)
        }
        let ticks = AsyncStream<Void> {
            try? await Task.sleep(for: Self.pollInterval)
            return Task.isCancelled ? nil : ()
        }
        for await _ in ticks { await catchUp(path, seen: &seen) }
    }

    /// Reloads when the file's identity differs from `seen`; a reload that could not take its turn is tried
    /// again, so the file's change is never skipped.
    private func catchUp(_ path: String, seen: inout FileIdentity?) async {
        while !Task.isCancelled {
            let now = FileIdentity(path: path)
            guard let now, now != seen else {
                seen = now
                return
            }
            if await reload(because: "the file changed") {
                seen = now
                return
            }
            try? await Task.sleep(for: Self.retryDelay)
        }
    }

    /// Applies the file; `false` when it could not take its turn and should be tried again.
    @discardableResult
    private func reload(because reason: String) async -> Bool {
        do {
            guard let changes = try await store.reload(),
                !(changes.added.isEmpty && changes.removed.isEmpty && changes.restarted.isEmpty)
            else {
                return true
            }
            logger.notice(
                "config reloaded",
                metadata: [
                    "reason": "\(reason)", "added": "\(changes.added)", "removed": "\(changes.removed)",
                    "restarted": "\(changes.restarted)",
                ]
            )
        } catch .stillStopping(let late) {
            logger.warning("config reloaded", metadata: ["reason": "\(reason)", "stopping": "\(late)"])
        } catch .busy(let why) {
            logger.warning("config reload postponed", metadata: ["reason": "\(reason)", "busy": "\(why)"])
            return false
        } catch {
            logger.error("config not reloaded; keeping the running config", metadata: ["reason": "\(error)"])
        }
        return true
    }

    /// The directory and the last component of `path` (`.` for a bare name).
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }
}
