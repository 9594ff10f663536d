import YrdenOAuth
import YrdenSharedState
import YrdenStorage

/// The store as OAuth sessions of replicas need it besides the mirror. Refreshes take turns: a turn is a
/// transaction holding the advisory lock of its name, the tokens are read from the database inside it (not
/// from this replica's mirror, which may lag another replica's write), and new tokens are written, and
/// announced, before the lock is released. Reads and writes go to the database, sealed as the mirror's are.
struct SharedOAuthStore: OAuthReplicaStore {
    let database: SharedStateDatabase
    /// Seals the secrets as ``SharedSecretStore`` does, bound to their names.
    let box: SecretBox

    func withTurn<Result: Sendable>(
        _ lock: String,
        reading name: String,
        _ body: @escaping @Sendable (_ stored: [UInt8]?) async throws -> (result: Result, store: [UInt8]?)
    ) async throws -> Result {
        let database = database
        let box = box
        let stored = SharedSecretStore.prefix + name
        // A store that is down fails this read within its short deadline, instead of the lock's wait, which
        // also has to cover the grant: a call needing a token is told in seconds.
        _ = try await database.read(stored)
        return try await database.exclusively(lock) {
            let sealed = try await database.read(stored)?.body
            let current = try sealed.map { try box.open($0, context: name, source: "the store's secret \(name)") }
            let (result, store) = try await body(current)
            if let store {
                // Awaited, not queued: the next replica's turn must read these.
                try await database.overwrite(stored, try box.seal(store, context: name))
            }
            return result
        }
    }

    func read(_ name: String) async throws -> [UInt8]? {
        guard let sealed = try await database.read(SharedSecretStore.prefix + name)?.body else { return nil }
        return try box.open(sealed, context: name, source: "the store's secret \(name)")
    }

    func write(_ name: String, _ bytes: [UInt8]) async throws {
        try await database.overwrite(SharedSecretStore.prefix + name, try box.seal(bytes, context: name))
    }
}
