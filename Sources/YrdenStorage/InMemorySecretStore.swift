import Synchronization

/// The test twin of ``FileSecretStore``: the same name rule and semantics, kept in memory.
package final class InMemorySecretStore: SecretStore {
    private let secrets: Mutex<[String: [UInt8]]>

    package init(_ secrets: [String: [UInt8]] = [:]) {
        self.secrets = Mutex(secrets)
    }

    /// Every stored name, sorted; lets tests check what was saved or removed.
    package var names: [String] {
        secrets.withLock { $0.keys.sorted() }
    }

    package func load(_ name: String) throws(StorageError) -> [UInt8]? {
        try SecretName.validate(name)
        return secrets.withLock { $0[name] }
    }

    package func save(_ name: String, _ bytes: [UInt8]) throws(StorageError) {
        try SecretName.validate(name)
        secrets.withLock { $0[name] = bytes }
    }

    package func remove(_ name: String) throws(StorageError) {
        try SecretName.validate(name)
        _ = secrets.withLock { $0.removeValue(forKey: name) }
    }
}
