import Logging
import YrdenConfig
import YrdenEngine
import YrdenSharedState

/// The config store with the config shared through a store: every change is a compare-and-set on the version
/// this replica runs, and what another replica wrote is applied here as the file's edits are for one gateway.
extension ConfigStore {
    /// Applies the stored config when it is newer than the one this replica runs. Before a change, so a change
    /// is always made to the latest version; and for each change another replica announces.
    func catchUpWithStore() async throws(ConfigStoreError) {
        guard let shared else { return }
        let snapshot: SharedConfig.Snapshot?
        do { snapshot = try await shared.read() } catch { throw ConfigStoreError(error) }
        guard let snapshot, snapshot.version != sharedVersion else { return }
        try await adopt(snapshot)
    }

    /// Runs `snapshot`'s config here.
    private func adopt(_ snapshot: SharedConfig.Snapshot) async throws(ConfigStoreError) {
        let source = "the shared config (version \(snapshot.version))"
        sharedVersion = snapshot.version
        do {
            let changes = try await apply(snapshot.document, source: source, versions: snapshot.versions)
            logger.info(
                "applied the shared config",
                metadata: [
                    "version": "\(snapshot.version)", "added": "\(changes.added)", "removed": "\(changes.removed)",
                    "restarted": "\(changes.restarted)",
                ]
            )
        } catch .stillStopping(let late) {
            logger.warning("applied the shared config", metadata: ["stopping": "\(late)"])
        }
    }

    /// Writes `next` to the store if it still holds the version this replica runs, then adopts it here.
    func commitToStore(_ next: ConfigDocument) async throws(ConfigStoreError) {
        guard let shared, next != document else { return }
        var nextVersions = versions
        nextVersions.advance(from: document, to: next, revision: Int(sharedVersion) + 1)
        do {
            sharedVersion = try await shared.write(next, versions: nextVersions, expecting: sharedVersion)
        } catch .versionChanged {
            throw .conflict("another replica changed the config at the same moment; read it again and retry")
        } catch {
            throw ConfigStoreError(error)
        }
        adopt(next, versions: nextVersions)
    }

    /// Applies `change` if it is the config's and newer than what runs here (or a resync after the feed was
    /// down), in turn with every other change; a failure is logged, and the next change or resync tries again.
    package func apply(_ change: StateChange) async {
        switch change {
        case .changed(let name, let version) where name == SharedConfig.name:
            guard version != sharedVersion else { return }
        case .changed: return
        case .resync: break
        }
        do {
            try await enter()
            defer { gate.leave() }
            try await catchUpWithStore()
        } catch {
            logger.warning("could not apply the shared config", metadata: ["reason": "\(error)"])
        }
    }
}

extension ConfigStoreError {
    init(_ error: SharedStateError) {
        switch error {
        case .unavailable(let message): self = .storeUnavailable(message)
        case .versionChanged: self = .conflict("another replica changed the config at the same moment; retry")
        case .badLocation(let message), .unreadable(let message): self = .storage(message)
        }
    }
}
