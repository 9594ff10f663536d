import Logging
import YrdenConfig
import YrdenEngine
import YrdenStorage

/// The config store with the config in a file: written back atomically, and an edit someone else made applied
/// before the next change (or at a reload), never overwritten.
extension ConfigStore {
    /// Re-reads the file (SIGHUP, or the file changed on disk) and reconciles like ``replaceDocument(_:)``;
    /// `nil` when there is no file or it is as this store last wrote or read it, so nothing was applied.
    package func reload() async throws(ConfigStoreError) -> ReconcileChanges? {
        guard let path else { return nil }
        try await enter()
        defer { gate.leave() }
        guard let bytes = try readFile(path) else { throw .invalid(Self.missingFile(path)) }
        // The file as this store wrote it (its own write is what the watcher saw): nothing to apply.
        guard bytes != fileBytes else { return nil }
        return try await apply(bytes, from: path)
    }

    /// Applies the file first when someone else edited it since this store last wrote or read it; a file that
    /// does not validate then refuses the change, which would otherwise overwrite the edit.
    func catchUpWithFile() async throws(ConfigStoreError) {
        guard let path, let bytes = try readFile(path), bytes != fileBytes else { return }
        do {
            let changes = try await apply(bytes, from: path)
            logger.notice(
                "config file edited on disk; applied before the admin change",
                metadata: ["added": "\(changes.added)", "removed": "\(changes.removed)"]
            )
        } catch .stillStopping(let late) {
            logger.warning("config file edited on disk; applied", metadata: ["stopping": "\(late)"])
        } catch .invalid(let error) {
            throw .conflict(
                "\(path) was edited and does not validate, so it was not overwritten: \(error); "
                    + "fix the file (yrden check-config \(path)) and retry"
            )
        }
    }

    /// Validates and adopts the file's `bytes`, and reconciles the running servers with it; the audit trail
    /// records the edit, applied or not.
    private func apply(_ bytes: [UInt8], from path: String) async throws(ConfigStoreError) -> ReconcileChanges {
        let started = ContinuousClock.now
        do throws(ConfigStoreError) {
            let next: ConfigDocument
            do { next = try ConfigDocument(parsing: bytes, source: path) } catch { throw .invalid(error) }
            fileBytes = bytes
            let changes = try await apply(next, source: path, versions: nil)
            gateway.recordConfigFileReload(file: path, applied: true, duration: .now - started)
            return changes
        } catch {
            // A server slow to stop still had the edit applied.
            if case .stillStopping = error {
                gateway.recordConfigFileReload(file: path, applied: true, duration: .now - started)
            } else {
                gateway.recordConfigFileReload(file: path, applied: false, duration: .now - started)
            }
            throw error
        }
    }

    /// Writes `next` to the file, if there is one (atomically: the old version or the new one, never a mix).
    func writeFile(_ next: ConfigDocument) throws(ConfigStoreError) {
        guard let path else { return }
        let bytes = next.serialized()
        do { try AtomicFile.write(bytes, to: path, mode: 0o600) } catch {
            throw .storage("could not save the config to \(path): \(error)")
        }
        fileBytes = bytes
    }

    /// The file's bytes, `nil` when there is none (yet: the embedded default writes it on the first change).
    private func readFile(_ path: String) throws(ConfigStoreError) -> [UInt8]? {
        do { return try AtomicFile.read(path) } catch { throw .storage("could not read \(path): \(error)") }
    }

    private static func missingFile(_ path: String) -> ConfigError {
        ConfigError(
            source: path,
            problems: [ConfigProblem(path: "", message: "the file is gone", fix: "put the config file back")]
        )
    }

    /// Removes what writers that crashed mid-write left beside the config file (`.yrden.json.tmp-*`).
    static func removeLeftovers(of path: String, logger: Logger) {
        do {
            for removed in try AtomicFile.removeLeftoverTemporaries(of: path) {
                logger.notice("removed a temporary file a crashed writer left", metadata: ["file": "\(removed)"])
            }
        } catch {
            logger.warning("could not look for leftover temporary files", metadata: ["reason": "\(error)"])
        }
    }
}
