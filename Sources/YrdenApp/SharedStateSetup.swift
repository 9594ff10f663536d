import Logging
import ServiceLifecycle
import Synchronization
import YrdenConfig
import YrdenControl
import YrdenSharedState
import YrdenStorage

/// A start that cannot go on for a reason the operator must fix (a store that cannot be reached, a missing
/// key): the CLI says `message` and exits 2, as for a bad config.
package struct StartupRefusal: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}

/// What replicas share through the store, as this one found it at start.
struct SharedState: Sendable {
    let database: SharedStateDatabase
    let config: SharedConfig
    let snapshot: SharedConfig.Snapshot
    /// OAuth tokens and registrations, the `requestState` key: sealed, mirrored here.
    let secrets: MirroredDocuments
    let box: SecretBox
    /// Who hears of a secret another replica changed (set once the OAuth sign-ins exist).
    let secretChanges: ChangeRelay

    var secretStore: SharedSecretStore { SharedSecretStore(documents: secrets, box: box) }
}

/// A late-bound listener: the store's mirrors exist before what must hear of their changes.
final class ChangeRelay: Sendable {
    private let listener = Mutex<(@Sendable (String) -> Void)?>(nil)

    func listen(_ body: @escaping @Sendable (String) -> Void) {
        listener.withLock { $0 = body }
    }

    func tell(_ name: String) {
        listener.withLock { $0 }?(name)
    }
}

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
                defer { writers.cancelAll() }
                try await body(shared, running)
            }
            // What was queued for the store in the last moments (a refreshed token) is written before the end.
            await shared.secrets.drain(limit: .seconds(3))
        }
    }

    private func open(_ database: SharedStateDatabase, box: SecretBox) async throws -> SharedState {
        do {
            try await database.migrate()
            let config = SharedConfig(database: database, local: loaded.document)
            let snapshot = try await config.loadOrSeed()
            let relay = ChangeRelay()
            let secrets = MirroredDocuments(prefix: SharedSecretStore.prefix, database: database) { relay.tell($0) }
            try await secrets.reload()
            return SharedState(
                database: database,
                config: config,
                snapshot: snapshot,
                secrets: secrets,
                box: box,
                secretChanges: relay
            )
        } catch {
            throw StartupRefusal(message: "store.postgres: \(error); check the URL, the credentials and that it runs")
        }
    }
}

/// Applies what other replicas change, as the store announces it, until graceful shutdown.
struct SharedStateFeed: Service {
    let shared: SharedState
    let store: ConfigStore

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await shared.database.follow { change in
                await store.apply(change)
                await shared.secrets.apply(change)
            }
        }
    }
}
