import Logging
import ServiceLifecycle
import UnixSignals
import YrdenConfig
import YrdenEngine

#if canImport(Glibc)
import Glibc
#endif

/// Applies the config file again when an operator sends SIGHUP or the file changes on disk: only servers
/// whose entry changed restart. A file that does not validate is refused with its problems in the log, and
/// the gateway keeps running what it had. A reload takes its turn with the admin API's changes, so the two
/// never interleave.
struct ConfigReloadService: Service {
    let store: ConfigStore
    let logger: Logger
    /// How often the file's identity (inode, size, modification time) is checked.
    static let pollInterval: Duration = .seconds(2)

    func run() async throws {
        guard let path = store.path else { return }
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in signals { await reload(because: "SIGHUP") }
                }
                group.addTask {
                    var seen = FileIdentity(path: path)
                    while !Task.isCancelled {
                        try? await Task.sleep(for: Self.pollInterval)
                        let now = FileIdentity(path: path)
                        guard now != seen, now != nil else {
                            seen = now
                            continue
                        }
                        // A reload that could not take its turn (other changes held the config) is tried
                        // again at the next poll, so the file's change is never skipped.
                        if await reload(because: "the file changed") { seen = now }
                    }
                }
            }
        }
    }

    /// Applies the file; `false` when it could not take its turn and should be tried again.
    @discardableResult
    private func reload(because reason: String) async -> Bool {
        do {
            let changes = try await store.reload()
            guard !(changes.added.isEmpty && changes.removed.isEmpty && changes.restarted.isEmpty) else {
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
}

/// What tells one version of a file from the next without reading it.
private struct FileIdentity: Equatable {
    var inode: UInt
    var size: Int
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        inode = UInt(info.st_ino)
        size = Int(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }
}
