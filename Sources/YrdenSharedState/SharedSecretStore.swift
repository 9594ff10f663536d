import YrdenStorage

/// Secrets (OAuth tokens and registrations, the `requestState` key) kept in the store, sealed with the key
/// every replica gets from `YRDEN_SECRET_KEY`, bound to their names: the database never holds one in clear.
package struct SharedSecretStore: SecretStore {
    /// The name prefix of secrets in the store.
    package static let prefix = "secret:"
    package let documents: MirroredDocuments
    let box: SecretBox

    package init(documents: MirroredDocuments, box: SecretBox) {
        self.documents = documents
        self.box = box
    }

    package func load(_ name: String) throws(StorageError) -> [UInt8]? {
        try SecretName.validate(name)
        guard let sealed = documents.load(name) else { return nil }
        return try box.open(sealed, context: name, source: "the store's secret \(name)")
    }

    package func save(_ name: String, _ bytes: [UInt8]) throws(StorageError) {
        try SecretName.validate(name)
        guard documents.store(name, try box.seal(bytes, context: name)) else { throw Self.queueFull(name) }
    }

    package func remove(_ name: String) throws(StorageError) {
        try SecretName.validate(name)
        guard documents.store(name, nil) else { throw Self.queueFull(name) }
    }

    private static func queueFull(_ name: String) -> StorageError {
        StorageError(
            .unavailable,
            message: "cannot queue \(name) for the store: too many writes wait for it to come back",
            fix: "bring the store's PostgreSQL back"
        )
    }
}
