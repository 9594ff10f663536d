import Logging
import PostgresNIO
import Synchronization

/// The documents under one name prefix, held in memory and written to the store behind the caller's back.
///
/// For state whose users read and write synchronously and must never wait on the database (a token asked for
/// on every upstream request, a pin book saved by the engine): reads come from the mirror; a write changes the
/// mirror at once and is queued for one writer task, which writes each name's latest value (earlier ones are
/// coalesced away) and retries with backoff while the database is down, so every write lands once it is back.
/// What other replicas write arrives through ``apply(_:)`` (the change feed) and ``reload()`` (its resyncs);
/// a name with a write still queued keeps this replica's value until the write lands.
package final class MirroredDocuments: Sendable {
    package let prefix: String
    package let database: SharedStateDatabase
    private let state = Mutex(State())
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    /// Called with a name (without the prefix) whose value another replica changed, by the feed's task.
    private let onChange: @Sendable (String) async -> Void

    private struct State {
        /// name → (version, body); a name not here has no value.
        var documents: [String: StoredDocument] = [:]
        /// name → the value to write (`nil`: remove), in the order they were queued.
        var pending: [String: [UInt8]?] = [:]
        /// Writes queued, at most this many names (each a document of a few kilobytes).
        static let limit = 4_096
    }

    package init(
        prefix: String,
        database: SharedStateDatabase,
        onChange: @escaping @Sendable (String) async -> Void = { _ in }
    ) {
        self.prefix = prefix
        self.database = database
        self.onChange = onChange
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The value of `name`, as this replica last wrote or heard it.
    package func load(_ name: String) -> [UInt8]? {
        state.withLock { $0.pending[name] ?? $0.documents[name]?.body }
    }

    /// The names under `start` that have a value here (a write queued included, a removal queued not): what
    /// a sweep of expired documents goes through.
    package func names(startingWith start: String) -> [String] {
        state.withLock { state in
            let held = state.documents.keys.filter { $0.hasPrefix(start) && state.pending[$0] == nil }
            let queued = state.pending.compactMap { $0.key.hasPrefix(start) && $0.value != nil ? $0.key : nil }
            return (held + queued).sorted()
        }
    }

    /// Queues `body` as `name`'s value (`nil`: remove it); false when the queue is full, which only a store
    /// down for a long time under many writes makes happen.
    @discardableResult
    package func store(_ name: String, _ body: [UInt8]?) -> Bool {
        let queued = state.withLock { state -> Bool in
            guard state.pending[name] != nil || state.pending.count < State.limit else { return false }
            state.pending[name] = .some(body)
            return true
        }
        if queued { wake.yield() }
        return queued
    }

    /// Reads every document under the prefix, replacing what the mirror holds for names with no write queued;
    /// at start, and after the feed was down. Names whose value changed are reported to `onChange`.
    package func reload() async throws(SharedStateError) {
        let prefix = self.prefix
        let logger = database.logger
        let rows: [(String, StoredDocument)] = try await database.bounded("read \(prefix)*") { client in
            var rows: [(String, StoredDocument)] = []
            let sequence = try await client.query(
                "SELECT name, version, body FROM yrden_state WHERE starts_with(name, \(prefix))",
                logger: logger
            )
            for try await (name, version, body) in sequence.decode((String, Int64, ByteBuffer).self) {
                rows.append(
                    (String(name.dropFirst(prefix.count)), StoredDocument(version: version, body: Array(buffer: body)))
                )
            }
            return rows
        }
        let changed = state.withLock { state -> [String] in
            var fresh: [String: StoredDocument] = [:]
            for (name, document) in rows { fresh[name] = document }
            var changed: [String] = []
            for name in Set(fresh.keys).union(state.documents.keys) where state.pending[name] == nil {
                guard fresh[name] != state.documents[name] else { continue }
                state.documents[name] = fresh[name]
                changed.append(name)
            }
            return changed
        }
        for name in changed { await onChange(name) }
    }

    /// Takes in a change the feed announced, when it is under the prefix and newer than what the mirror has.
    package func apply(_ change: StateChange) async {
        switch change {
        case .resync:
            do { try await reload() } catch {
                database.logger.warning("could not reload \(prefix)* from the store", metadata: ["reason": "\(error)"])
            }
        case .changed(let fullName, let version):
            guard fullName.hasPrefix(prefix) else { return }
            let name = String(fullName.dropFirst(prefix.count))
            let known = state.withLock { $0.pending[name] != nil ? Int64.max : $0.documents[name]?.version ?? 0 }
            guard version == 0 || version > known else { return }
            let stored: StoredDocument?
            do { stored = try await database.read(fullName) } catch {
                database.logger.warning("could not read \(fullName) from the store", metadata: ["reason": "\(error)"])
                return
            }
            let changed = state.withLock { state -> Bool in
                guard state.pending[name] == nil, state.documents[name] != stored else { return false }
                state.documents[name] = stored
                return true
            }
            if changed { await onChange(name) }
        }
    }

    /// Writes what is queued until cancelled: each name's latest value, retried with backoff (0.2 s doubling
    /// to 5 s) while the store cannot be written.
    package func runWriter() async {
        var backoff = Duration.milliseconds(200)
        for await _ in wakes {
            while !Task.isCancelled, nextPending() != nil {
                // The first failure of a run of them is said; the retries are not.
                if await writeNext(reporting: backoff == .milliseconds(200)) {
                    backoff = .milliseconds(200)
                } else {
                    do { try await Task.sleep(for: backoff) } catch { return }
                    backoff = min(backoff * 2, .seconds(5))
                }
            }
        }
    }

    /// Writes what is still queued, for at most `limit` (at shutdown, after the writer stopped).
    package func drain(limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline, nextPending() != nil, await writeNext(reporting: true) {}
    }

    /// Writes the first queued name; false when the store refused it (it stays queued).
    private func writeNext(reporting: Bool) async -> Bool {
        guard let (name, body) = nextPending() else { return true }
        do {
            if let body {
                landed(name, body: body, version: try await database.overwrite(prefix + name, body))
            } else {
                try await database.remove(prefix + name)
                landed(name, body: nil, version: 0)
            }
            return true
        } catch {
            if reporting {
                database.logger.warning(
                    "could not write \(prefix)\(name) to the store; retrying until it takes it",
                    metadata: ["reason": "\(error)"]
                )
            }
            return false
        }
    }

    private func nextPending() -> (String, [UInt8]?)? {
        state.withLock { state in state.pending.first.map { ($0.key, $0.value) } }
    }

    /// Records a write that landed, unless a newer value was queued for the name meanwhile.
    private func landed(_ name: String, body: [UInt8]?, version: Int64) {
        state.withLock { state in
            guard let queued = state.pending[name], queued == body else { return }
            state.pending[name] = nil
            state.documents[name] = body.map { StoredDocument(version: version, body: $0) }
        }
    }
}
