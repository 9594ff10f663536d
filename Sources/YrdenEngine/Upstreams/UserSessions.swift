import Synchronization
import YrdenTransport

/// How many users' own sessions one `perUser` server keeps, and for how long an unused one stays open.
package struct UserSessionLimits: Sendable, Hashable {
    /// Sessions open at once per server; past it the least recently used one without a call in flight is
    /// closed, and when every one has a call in flight a new user's call is refused.
    package var maxUsers: Int
    /// A session without a call for this long is closed.
    package var idleTimeout: Duration

    package init(maxUsers: Int = 256, idleTimeout: Duration = .seconds(300)) {
        self.maxUsers = max(1, maxUsers)
        self.idleTimeout = idleTimeout
    }
}

/// A `perUser` server's upstream sessions of its users, one per user, for a server whose connection speaks
/// the handshake era over Streamable HTTP.
///
/// Such a server (the official SDK's among them) binds a session to the credential that opened it and answers
/// 404 to a request of that session carrying another user's token, so users' calls cannot share the server's
/// connection. A user's session is opened on their first call, with their own token (``open``: `initialize`
/// and `notifications/initialized` as the connection's), once however many of their calls start together,
/// and kept for their next calls; lists stay on the server's connection.
///
/// Bounded (``UserSessionLimits``); a session is closed when its user must sign in again (``discard(_:)``),
/// when its channel closed, and all of them when the connection's attempt that made the table ends
/// (``closeAll()``: reconnected, reconfigured, removed, the gateway stopping), which waits for every close.
final class UserSessions: Sendable {
    /// Opens `user`'s session, handshake done; fails within the server's connect timeout.
    typealias Opener = @Sendable (_ user: String) async throws(UpstreamError) -> UpstreamClient

    /// A user's session in use by one call; ``release()`` it when the call is over.
    struct Lease: Sendable {
        let client: UpstreamClient
        fileprivate let user: String
        fileprivate let slot: UInt64
        fileprivate let table: UserSessions

        func release() { table.release(self) }
    }

    private struct Slot {
        let id: UInt64
        let opening: Task<Result<UpstreamClient, UpstreamError>, Never>
        /// The session, once open.
        var client: UpstreamClient?
        var inFlight = 1
        var lastUsed: ContinuousClock.Instant

        /// No call holds it, nor waits in it for an answer (a call that runs parked holds no lease).
        var isIdle: Bool { inFlight == 0 && client?.requestsInFlight == 0 }
    }

    private struct State {
        var slots: [String: Slot] = [:]
        var lastID: UInt64 = 0
        /// Closes under way (an evicted, idle or dead session), awaited by ``closeAll()``.
        var closing: [UInt64: Task<Void, Never>] = [:]
        var closed = false
    }

    /// The server's connection the table belongs to: a call routed by a snapshot of another one does not use it.
    let shared: UpstreamClient
    let limits: UserSessionLimits
    private let open: Opener
    private let time: any TimeSource
    private let state = Mutex(State())

    init(shared: UpstreamClient, limits: UserSessionLimits, time: any TimeSource, open: @escaping Opener) {
        self.shared = shared
        self.limits = limits
        self.time = time
        self.open = open
    }

    /// Users with a session now (opening or open).
    var count: Int { state.withLock { $0.slots.count } }

    /// `user`'s session, opened now if they have none; the call holds it until ``Lease/release()``. A session
    /// whose channel has closed meanwhile (the server ended it and refused a new one) is replaced.
    func lease(_ user: String) async throws(UpstreamError) -> Lease {
        let lease = try await take(user)
        guard lease.client.events.hasEnded else { return lease }
        state.withLock { state in
            if state.slots[user]?.id == lease.slot { state.slots[user] = nil }
        }
        return try await take(user)
    }

    private func take(_ user: String) async throws(UpstreamError) -> Lease {
        let now = time.now
        let picked = state.withLock {
            state -> Result<(UInt64, Task<Result<UpstreamClient, UpstreamError>, Never>, Slot?), UpstreamError> in
            guard !state.closed else {
                return .failure(UpstreamError(.notConnected, "the server's connection was closed"))
            }
            if var slot = state.slots[user] {
                slot.inFlight += 1
                slot.lastUsed = now
                state.slots[user] = slot
                return .success((slot.id, slot.opening, nil))
            }
            var evicted: Slot?
            if state.slots.count >= limits.maxUsers {
                let idle = state.slots.filter { $0.value.isIdle }
                guard let oldest = idle.min(by: { $0.value.lastUsed < $1.value.lastUsed }) else {
                    return .failure(
                        UpstreamError(
                            .notConnected,
                            "\(limits.maxUsers) users' sessions with this server are all in use; try again shortly"
                        )
                    )
                }
                evicted = state.slots.removeValue(forKey: oldest.key)
            }
            state.lastID += 1
            let open = self.open
            // Unstructured: the first of the user's calls to start it may go away, the others still wait for it.
            // It ends within the server's connect timeout.
            let opening = Task { () -> Result<UpstreamClient, UpstreamError> in
                do throws(UpstreamError) { return .success(try await open(user)) } catch { return .failure(error) }
            }
            state.slots[user] = Slot(id: state.lastID, opening: opening, lastUsed: now)
            return .success((state.lastID, opening, evicted))
        }
        let (id, opening, evicted) = try picked.get()
        if let evicted { close(evicted) }
        switch await opening.value {
        case .success(let client):
            state.withLock { state in
                if state.slots[user]?.id == id { state.slots[user]?.client = client }
            }
            return Lease(client: client, user: user, slot: id, table: self)
        case .failure(let error):
            state.withLock { state in
                if state.slots[user]?.id == id { state.slots[user] = nil }
            }
            throw error
        }
    }

    /// The call holding `lease` is over.
    fileprivate func release(_ lease: Lease) {
        let now = time.now
        state.withLock { state in
            guard var slot = state.slots[lease.user], slot.id == lease.slot else { return }
            slot.inFlight -= 1
            slot.lastUsed = now
            state.slots[lease.user] = slot
        }
    }

    /// `user`'s session is closed (their tokens were dropped: whoever signs in next opens a new one).
    func discard(_ user: String) {
        guard let slot = state.withLock({ $0.slots.removeValue(forKey: user) }) else { return }
        close(slot)
    }

    /// Closes the sessions unused for ``UserSessionLimits/idleTimeout``, waking when the next one is due, until
    /// the calling task (the connection's attempt) is cancelled.
    func expireIdle() async {
        while !Task.isCancelled {
            let now = time.now
            let idle = limits.idleTimeout
            let (expired, next) = state.withLock { state -> ([Slot], ContinuousClock.Instant) in
                var expired: [Slot] = []
                // A session made after this pass expires no sooner than a full timeout from now.
                var next = now + idle
                for (user, slot) in state.slots where slot.isIdle {
                    if slot.lastUsed + idle <= now {
                        expired.append(slot)
                        state.slots[user] = nil
                    } else {
                        next = min(next, slot.lastUsed + idle)
                    }
                }
                return (expired, next)
            }
            expired.forEach(close)
            do { try await time.sleep(until: next) } catch { return }
        }
    }

    /// Closes every session, refuses new ones, and returns once every close (earlier ones too) is done.
    func closeAll() async {
        let (slots, closing) = state.withLock { state in
            state.closed = true
            defer { state.slots.removeAll() }
            return (Array(state.slots.values), Array(state.closing.values))
        }
        await withDiscardingTaskGroup { group in
            for slot in slots { group.addTask { await Self.close(slot) } }
            for task in closing { group.addTask { await task.value } }
        }
    }

    /// Closes `slot`'s session (once it is open) in a task ``closeAll()`` waits for: a DELETE to the server,
    /// bounded by its own deadline.
    private func close(_ slot: Slot) {
        let id = slot.id
        state.withLock { state in
            // Unstructured so that a caller on the request path does not wait for the DELETE; tracked until done.
            state.closing[id] = Task {
                await Self.close(slot)
                _ = self.state.withLock { $0.closing.removeValue(forKey: id) }
            }
        }
    }

    private static func close(_ slot: Slot) async {
        guard case .success(let client) = await slot.opening.value else { return }
        await client.close()
    }
}

/// Each `perUser` server's ``UserSessions`` of its connection's current attempt, where a call finds them.
final class UserSessionTables: Sendable {
    private let tables = Mutex<[String: UserSessions]>([:])

    func attach(_ table: UserSessions, for server: String) {
        tables.withLock { $0[server] = table }
    }

    func detach(_ table: UserSessions, for server: String) {
        tables.withLock { tables in
            if tables[server] === table { tables[server] = nil }
        }
    }

    /// Server `server`'s table, if it belongs to the connection `client` (the one the call was routed by).
    func table(for server: String, over client: UpstreamClient) -> UserSessions? {
        guard let table = tables.withLock({ $0[server] }), table.shared === client else { return nil }
        return table
    }

    /// Server `server`'s table, whatever connection it belongs to.
    func table(for server: String) -> UserSessions? {
        tables.withLock { $0[server] }
    }
}
