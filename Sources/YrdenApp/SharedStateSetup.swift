import Logging
import YrdenConfig
import YrdenControl
import YrdenSharedState
import YrdenStorage

/// Opens the store `store.postgres` names: connects (bounded), migrates the schema, and reads the shared
/// config, or writes this replica's file as its first version. Any failure refuses the start.
struct SharedStateSetup {
    let loaded: LoadedConfig
    let logger: Logger

    /// Runs `body` with the shared state and the config to run (the shared one, with this replica's own
    /// settings); the store's connections close when `body` returns.
    func withSharedState(
        url: String,
        _ body: (SharedState, LoadedConfig) async throws -> Void
    ) async throws {
        let location: PostgresLocation
        do { location = try PostgresLocation(url: url) } catch {
            throw StartupRefusal(message: "store.postgres: \(error)")
        }
        guard let key = loaded.environment["YRDEN_SECRET_KEY"], !key.isEmpty else {
            throw StartupRefusal(
                message:
                    "store.postgres is set but YRDEN_SECRET_KEY is not: OAuth tokens are kept in the store sealed, "
                    + "never in clear; give every replica the same key (openssl rand -hex 32)"
            )
        }
        let box: SecretBox
        do { box = try SecretBox(keyText: key) } catch { throw StartupRefusal(message: "YRDEN_SECRET_KEY: \(error)") }
        let database = SharedStateDatabase(location: location, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await database.run() }
            defer { group.cancelAll() }
            let shared = try await open(database, box: box)
            let running: LoadedConfig
            do {
                running = try LoadedConfig(
                    document: shared.snapshot.document,
                    source: "the shared config in \(location.description)",
                    path: nil,
                    environment: loaded.environment
                )
            } catch {
                throw StartupRefusal(message: "\(error)")
            }
            logger.info(
                "shared state in PostgreSQL",
                metadata: ["store": "\(location.description)", "config version": "\(shared.snapshot.version)"]
            )
            try await withThrowingTaskGroup(of: Void.self) { writers in
                writers.addTask { await shared.secrets.runWriter() }
                writers.addTask { await shared.pins.runWriter() }
                defer { writers.cancelAll() }
                try await body(shared, running)
            }
            // What was queued for the store in the last moments (a refreshed token) is written before the end.
            await shared.secrets.drain(limit: .seconds(3))
            await shared.pins.drain(limit: .seconds(3))
        }
    }

    private func open(_ database: SharedStateDatabase, box: SecretBox) async throws -> SharedState {
        do {
            try await database.check()
            try await database.migrate()
            let config = SharedConfig(database: database, local: loaded.document)
            let snapshot = try await config.loadOrSeed()
            let relay = ChangeRelay()
            let secrets = MirroredDocuments(prefix: SharedSecretStore.prefix, database: database) {
                await relay.tell($0)
            }
            try await secrets.reload()
            let pinRelay = ChangeRelay()
            let pins = MirroredDocuments(prefix: SharedToolPinStore.prefix, database: database) {
                await pinRelay.tell($0)
            }
            try await pins.reload()
            let requestStateKey = try await sharedKey(SharedStateSetup.requestStateKeyName, in: database, box: box)
            return SharedState(
                database: database,
                config: config,
                snapshot: snapshot,
                secrets: secrets,
                box: box,
                secretChanges: relay,
                requestStateKey: requestStateKey,
                pins: pins,
                pinChanges: pinRelay,
                ownSecretVariables: loaded.document.secretVariables
            )
        } catch {
            throw StartupRefusal(message: "store.postgres: \(error); check the URL, the credentials and that it runs")
        }
    }
}

extension SharedStateSetup {
    static let requestStateKeyName = "requeststate.key"

    /// The 32-byte key called `name` that every replica shares: read, or made and written by the first replica
    /// (two making one at once: one write wins, the other reads it). Sealed like every secret in the store.
    func sharedKey(_ name: String, in database: SharedStateDatabase, box: SecretBox) async throws -> [UInt8] {
        let made = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
        let sealed = try box.seal(made, context: name)
        let stored = try await Self.readOrCreate(SharedSecretStore.prefix + name, sealed, in: database)
        return try box.open(stored, context: name, source: "the store's \(name)")
    }

    /// What is stored as `name`, or `body` written there first if nothing is.
    private static func readOrCreate(
        _ name: String,
        _ body: [UInt8],
        in database: SharedStateDatabase
    ) async throws(SharedStateError) -> [UInt8] {
        if let found = try await database.read(name) { return found.body }
        do {
            _ = try await database.write(name, body, expecting: 0)
            return body
        } catch {
            guard case .versionChanged = error, let found = try await database.read(name) else { throw error }
            return found.body
        }
    }
}
