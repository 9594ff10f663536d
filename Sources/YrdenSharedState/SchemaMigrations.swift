import Logging
import PostgresNIO

/// The schema, created and moved forward by the gateway itself.
///
/// Each migration runs once, in order, in one transaction with its row in `yrden_migrations`; every replica
/// takes the same advisory lock first, so N replicas starting at once apply each migration exactly once and the
/// others find it done. A database migrated by a newer build (a version this one does not know) is refused:
/// an older replica must not write a shape it does not understand.
extension SharedStateDatabase {
    /// The migrations, in order; a new one is appended, never edited.
    static let migrations: [(version: Int, sql: PostgresQuery)] = [
        (
            1,
            """
            CREATE TABLE yrden_state (
                name text PRIMARY KEY,
                version bigint NOT NULL CHECK (version > 0),
                body bytea NOT NULL,
                changed_at timestamptz NOT NULL DEFAULT now()
            )
            """
        )
    ]

    /// A constant key for the migration lock (any 64-bit number no one else uses; this is "yrden" in ASCII).
    static let migrationLock: Int64 = 0x79_7264_656e

    /// Connects once and hangs up: at start, so a store that is down or refuses the credentials is said in
    /// seconds, with the server's own reason (the pool would keep retrying until its deadline).
    package func check() async throws(SharedStateError) {
        let location = self.location
        let logger = self.logger
        try await bounded("connect") { _ in
            let connection = try await PostgresConnection.connect(
                configuration: try location.connectionConfiguration(),
                id: 0,
                logger: logger
            )
            try await connection.close()
        }
    }

    /// Brings the schema to this build's version; returns the versions it applied.
    @discardableResult
    package func migrate() async throws(SharedStateError) -> [Int] {
        let known = Self.migrations.last?.version ?? 0
        let result: Result<[Int], SharedStateError> = try await bounded("migrate", limit: .seconds(30)) { client in
            try await client.withTransaction(logger: self.logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: self.logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS yrden_migrations (
                        version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                    """,
                    logger: self.logger
                )
                var current = 0
                let rows = try await connection.query(
                    "SELECT coalesce(max(version), 0) FROM yrden_migrations",
                    logger: self.logger
                )
                for try await value in rows.decode(Int.self) { current = value }
                guard current <= known else {
                    return .failure(
                        .unreadable(
                            "the store's schema is at version \(current), newer than this build knows (\(known)); "
                                + "run the newer yrden"
                        )
                    )
                }
                var applied: [Int] = []
                for migration in Self.migrations where migration.version > current {
                    try await connection.query(migration.sql, logger: self.logger)
                    try await connection.query(
                        "INSERT INTO yrden_migrations (version) VALUES (\(migration.version))",
                        logger: self.logger
                    )
                    applied.append(migration.version)
                }
                return .success(applied)
            }
        }
        let applied = try result.get()
        if !applied.isEmpty {
            logger.notice(
                "store schema migrated",
                metadata: ["store": "\(location.description)", "applied": "\(applied)"]
            )
        }
        return applied
    }
}
