import Logging
import NIOCore
import PostgresNIO

/// The gateway's shared state in PostgreSQL: named documents, each with a version that every write advances,
/// written only by compare-and-set, and announced to every replica on commit (`NOTIFY yrden_state`).
///
/// One table holds it all (`yrden_state`: name, version, body), since each thing shared is read and written
/// whole and rarely: the config, the tool pins, each server's sealed OAuth state, the `requestState` key. Every
/// operation has a deadline, so a database that stopped answering turns into ``SharedStateError/unavailable(_:)``
/// in seconds, never a hang; nothing here runs on a request's path.
package final class SharedStateDatabase: Sendable {
    /// The channel every replica listens on; a payload is `<version> <name>`.
    static let channel = "yrden_state"

    package let location: PostgresLocation
    let client: PostgresClient
    let logger: Logger
    /// How long one operation may take, connecting included.
    let deadline: Duration

    package init(location: PostgresLocation, logger: Logger, deadline: Duration = .seconds(5)) {
        self.location = location
        // The pool logs every failed connection attempt at info: while the database is down that is a line per
        // retry. What matters is said once, here, at warning.
        var poolLogger = logger
        poolLogger.logLevel = max(logger.logLevel, .warning)
        self.client = PostgresClient(configuration: location.clientConfiguration(), backgroundLogger: poolLogger)
        self.logger = logger
        self.deadline = deadline
    }

    /// Runs the connection pool until the task is cancelled; every other call needs it running.
    package func run() async {
        await client.run()
    }

    /// The document `name` and its version; `nil` when none was written.
    package func read(_ name: String) async throws(SharedStateError) -> StoredDocument? {
        try await bounded("read \(name)") { client in
            let rows = try await client.query(
                "SELECT version, body FROM yrden_state WHERE name = \(name)",
                logger: self.logger
            )
            for try await (version, body) in rows.decode((Int64, ByteBuffer).self) {
                return StoredDocument(version: version, body: Array(buffer: body))
            }
            return nil
        }
    }

    /// Writes `body` as `name` if its stored version is still `expected` (0: if there is none yet), and tells
    /// every replica; returns the new version. Throws ``SharedStateError/versionChanged`` when another
    /// write came first, so the caller reads again and decides.
    package func write(
        _ name: String,
        _ body: [UInt8],
        expecting expected: Int64
    ) async throws(SharedStateError)
        -> Int64
    {
        let bytes = ByteBuffer(bytes: body)
        let written: Int64? = try await bounded("write \(name)") { client in
            try await client.withTransaction(logger: self.logger) { connection in
                let rows =
                    expected == 0
                    ? try await connection.query(
                        """
                        INSERT INTO yrden_state (name, version, body) VALUES (\(name), 1, \(bytes))
                        ON CONFLICT (name) DO NOTHING RETURNING version
                        """,
                        logger: self.logger
                    )
                    : try await connection.query(
                        """
                        UPDATE yrden_state SET version = version + 1, body = \(bytes), changed_at = now()
                        WHERE name = \(name) AND version = \(expected) RETURNING version
                        """,
                        logger: self.logger
                    )
                var version: Int64?
                for try await value in rows.decode(Int64.self) { version = value }
                if let version {
                    try await connection.query(
                        "SELECT pg_notify(\(Self.channel), \("\(version) \(name)"))",
                        logger: self.logger
                    )
                }
                return version
            }
        }
        guard let written else {
            throw .versionChanged
        }
        return written
    }

    /// Writes `body` as `name` whatever is stored (for what has one writer at a time by construction, or where
    /// the last write wins); returns the new version.
    @discardableResult
    package func overwrite(_ name: String, _ body: [UInt8]) async throws(SharedStateError) -> Int64 {
        let bytes = ByteBuffer(bytes: body)
        return try await bounded("write \(name)") { client in
            try await client.withTransaction(logger: self.logger) { connection in
                let rows = try await connection.query(
                    """
                    INSERT INTO yrden_state (name, version, body) VALUES (\(name), 1, \(bytes))
                    ON CONFLICT (name) DO UPDATE SET version = yrden_state.version + 1, body = EXCLUDED.body,
                    changed_at = now() RETURNING version
                    """,
                    logger: self.logger
                )
                var version: Int64 = 0
                for try await value in rows.decode(Int64.self) { version = value }
                try await connection.query(
                    "SELECT pg_notify(\(Self.channel), \("\(version) \(name)"))",
                    logger: self.logger
                )
                return version
            }
        }
    }

    /// Forgets `name`, and tells every replica (version 0).
    package func remove(_ name: String) async throws(SharedStateError) {
        try await bounded("remove \(name)") { client in
            try await client.withTransaction(logger: self.logger) { connection in
                try await connection.query("DELETE FROM yrden_state WHERE name = \(name)", logger: self.logger)
                try await connection.query(
                    "SELECT pg_notify(\(Self.channel), \("0 \(name)"))",
                    logger: self.logger
                )
            }
        }
    }

    /// Runs `body` while no other replica runs a `body` for the same `name` (a transaction-scoped advisory
    /// lock, released when the transaction ends, also when this process dies). `body` gets the whole deadline of
    /// `limit`, the lock's wait included, and should read what it guards afresh inside.
    package func exclusively<Result: Sendable>(
        _ name: String,
        limit: Duration = .seconds(30),
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await bounded("lock \(name)", limit: limit) { client in
            try await client.withTransaction(logger: self.logger) { connection in
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtextextended(\(name), 0))",
                    logger: self.logger
                )
                return try await body()
            }
        }
    }

    /// Runs `operation` against the pool within the deadline, and words any failure for an operator.
    func bounded<Result: Sendable>(
        _ what: String,
        limit: Duration? = nil,
        _ operation: @escaping @Sendable (PostgresClient) async throws -> Result
    ) async throws(SharedStateError) -> Result {
        let limit = limit ?? deadline
        let client = self.client
        do {
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask { try await operation(client) }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let result = first else {
                    throw SharedStateError.unavailable(
                        "the store PostgreSQL at \(location.description) did not answer within "
                            + "\(limit.components.seconds) s (\(what))"
                    )
                }
                return result
            }
        } catch let error as SharedStateError {
            throw error
        } catch {
            throw .unavailable(
                "the store PostgreSQL at \(location.description) failed (\(what)): \(Self.reason(error))"
            )
        }
    }

    /// The server's own message where there is one (`PSQLError`'s description hides it for privacy).
    static func reason(_ error: any Error) -> String {
        if let transaction = error as? PostgresTransactionError {
            if let inner = transaction.closureError ?? transaction.beginError ?? transaction.commitError {
                return reason(inner)
            }
        }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return "\(message) (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}

/// A document as stored: its bytes, and the version its last write made.
package struct StoredDocument: Sendable, Equatable {
    package var version: Int64
    package var body: [UInt8]

    package init(version: Int64, body: [UInt8]) {
        self.version = version
        self.body = body
    }
}
