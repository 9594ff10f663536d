import YrdenConfig
import YrdenTelemetry
import YrdenTransport

/// Why an operator's change to the set of servers was refused.
package enum ControlError: Error, Sendable, Hashable {
    case unknownServer(String)
    case duplicateServer(String)
    /// The change conflicts with the server's current state (connecting a disabled server).
    case conflict(String)
}

/// What a reconcile did, server by server.
package struct ReconcileChanges: Sendable, Hashable {
    package internal(set) var added: [String] = []
    package internal(set) var removed: [String] = []
    package internal(set) var restarted: [String] = []
    package internal(set) var unchanged: [String] = []
    /// Removed or restarted servers that had not stopped by the time limit; they stop in the background.
    package internal(set) var stillStopping: [String] = []
}

extension ServerLifecycle {
    /// How long an operator's change waits for a server to stop (a stdio child gets closed stdin, SIGTERM after
    /// 2 s and SIGKILL after 5 s, so a healthy one is gone well within it). Past it the change is applied all
    /// the same and the server finishes stopping in the background.
    package static let stopLimit: Duration = .seconds(10)

    /// Adds a server and starts connecting it (unless disabled); every session hears of its tools once it is up.
    package func addServer(_ spec: ServerSpec) async throws(ControlError) {
        let span = changeSpan("add", server: spec.id)
        defer { endChange(span) }
        let added = await registry.update { snapshot -> Bool in
            guard snapshot.links[spec.id] == nil else { return false }
            snapshot.links[spec.id] = ServerLink(spec: spec)
            snapshot.order.append(spec.id)
            return true
        }
        guard added else { throw .duplicateServer(spec.id) }
        log.append("server \(spec.id) added", event: "config", metadata: ["server": spec.id])
        if !spec.disabled { await startConnection(spec, cause: span?.context) }
    }

    /// Replaces a server's spec. The server is restarted only when the spec differs; `restarted` says whether
    /// it was, `stoppedInTime` whether its old connection ended within `limit` (if not, the new one opens
    /// nothing before it has).
    @discardableResult
    package func replaceServer(
        _ spec: ServerSpec,
        stopLimit limit: Duration = stopLimit
    ) async throws(ControlError) -> (restarted: Bool, stoppedInTime: Bool) {
        guard let old = registry.snapshot.links[spec.id]?.spec else { throw .unknownServer(spec.id) }
        guard old != spec else { return (false, true) }
        let span = changeSpan("replace", server: spec.id)
        defer { endChange(span) }
        let late = await stopConnections([spec.id], within: limit)
        await registry.update { snapshot in
            guard let previous = snapshot.links[spec.id] else { return }
            snapshot.links[spec.id] = ServerLink(spec: spec, previous: previous)
        }
        log.append("server \(spec.id) reconfigured", event: "config", metadata: ["server": spec.id])
        if !spec.disabled { await startConnection(spec, cause: span?.context) }
        return (true, late.isEmpty)
    }

    /// Stops a server and removes it and its tools. `true` when it stopped within `limit` (a stdio child has
    /// exited and been reaped); otherwise it is removed all the same and finishes stopping in the background.
    @discardableResult
    package func removeServer(_ id: String, stopLimit limit: Duration = stopLimit) async throws(ControlError) -> Bool {
        guard registry.snapshot.links[id] != nil else { throw .unknownServer(id) }
        let span = changeSpan("remove", server: id)
        defer { endChange(span) }
        let late = await stopConnections([id], within: limit)
        await registry.update { snapshot in
            snapshot.links.removeValue(forKey: id)
            snapshot.order.removeAll { $0 == id }
        }
        forgetSignIn(id)
        pinning.forgetRemovedServers()
        log.append("server \(id) removed", event: "config", metadata: ["server": id])
        return late.isEmpty
    }

    /// Starts connecting a server that is disconnected or gave up; one connected, connecting or waiting for
    /// its next retry is left as it is.
    package func connectServer(_ id: String) async throws(ControlError) {
        guard let spec = registry.snapshot.links[id]?.spec else { throw .unknownServer(id) }
        guard !spec.disabled else {
            throw .conflict("server \(id) is disabled; enable it (\"disabled\": false) before connecting it")
        }
        guard let connection = connections.connection(id) else { return await startConnection(spec) }
        guard connection.inbox.send(.connect) else { throw Self.busy(id) }
    }

    /// Waits, at most `limit`, until server `id`'s connection has carried out the commands sent to it so far
    /// (a `connect` has moved it to `connecting`), so an answer shows their effect; `false` past the limit.
    package func commandsCarriedOut(for id: String, within limit: Duration = .seconds(2)) async -> Bool {
        guard let done = connections.connection(id)?.inbox.latestCommand else { return true }
        return await done.wait(until: connector.time.now + limit, time: connector.time)
    }

    /// Closes a server's connection until it is connected again; its tools leave the aggregate. `true` when it
    /// closed within `limit`; otherwise it shows as disconnected once it has closed in the background.
    @discardableResult
    package func disconnectServer(
        _ id: String,
        stopLimit limit: Duration = stopLimit
    ) async throws(ControlError)
        -> Bool
    {
        try await command(.disconnect, to: id, within: limit)
    }

    /// A fresh process or connection, a fresh handshake and catalog. `true` when the old connection closed
    /// within `limit`; otherwise the new attempt starts once it has.
    @discardableResult
    package func restartServer(_ id: String, stopLimit limit: Duration = stopLimit) async throws(ControlError) -> Bool {
        guard let spec = registry.snapshot.links[id]?.spec else { throw .unknownServer(id) }
        guard !spec.disabled else {
            throw .conflict("server \(id) is disabled; enable it (\"disabled\": false) before connecting it")
        }
        guard connections.connection(id) != nil else {
            await startConnection(spec)
            return true
        }
        return try await command(.restart, to: id, within: limit)
    }

    /// Sends `event` to server `id`'s connection and waits, at most `limit`, until it has been carried out.
    /// A server without a connection (disabled) has nothing to close.
    private func command(
        _ event: UpstreamLifecycle.Event,
        to id: String,
        within limit: Duration
    ) async throws(ControlError) -> Bool {
        guard registry.snapshot.links[id] != nil else { throw .unknownServer(id) }
        guard let connection = connections.connection(id) else { return true }
        let done = Completion()
        guard connection.inbox.send(event, done: done) else {
            if connection.finished.isDone { return true }
            throw Self.busy(id)
        }
        return await done.wait(until: connector.time.now + limit, time: connector.time)
    }

    private static func busy(_ id: String) -> ControlError {
        .conflict("server \(id) has \(ConnectionInbox.maxCommands) commands waiting; try again once they are done")
    }

    /// Tells the connections of `ids` to stop and waits for them, all within one `limit`; returns the late ones.
    private func stopConnections(_ ids: [String], within limit: Duration) async -> [String] {
        await connections.stop(ids, until: connector.time.now + limit, time: connector.time)
    }

    /// A removed server's pending sign-in is cancelled (its stored tokens stay on disk).
    private func forgetSignIn(_ id: String) {
        connector.credentials?.forget(id)
    }

    /// Makes the running set of servers match `servers`: new ones are added, missing ones removed, changed
    /// ones restarted; the rest keep running untouched. The order of `servers` becomes the config order.
    /// Servers leaving or restarting are stopped together, all within one `limit`.
    package func reconcile(to servers: [ServerSpec], stopLimit limit: Duration = stopLimit) async -> ReconcileChanges {
        let span = changeSpan("reload", server: nil)
        defer { endChange(span) }
        var changes = ReconcileChanges()
        let current = registry.snapshot
        let wanted = Set(servers.map(\.id))
        changes.removed = current.order.filter { !wanted.contains($0) }
        var restarting: [ServerSpec] = []
        var added: [ServerSpec] = []
        for spec in servers {
            if let old = current.links[spec.id]?.spec {
                if old == spec { changes.unchanged.append(spec.id) } else { restarting.append(spec) }
            } else {
                added.append(spec)
            }
        }
        changes.restarted = restarting.map(\.id)
        changes.added = added.map(\.id)
        changes.stillStopping = await stopConnections(changes.removed + changes.restarted, within: limit)
        let removed = changes.removed
        await registry.update { [restarting, added] snapshot in
            for id in removed { snapshot.links.removeValue(forKey: id) }
            for spec in restarting + added {
                snapshot.links[spec.id] = ServerLink(spec: spec, previous: snapshot.links[spec.id])
            }
            snapshot.order = servers.map(\.id)
        }
        if !changes.removed.isEmpty { pinning.forgetRemovedServers() }
        for id in changes.removed {
            forgetSignIn(id)
            log.append("server \(id) removed", event: "config", metadata: ["server": id])
        }
        for spec in restarting {
            log.append("server \(spec.id) reconfigured", event: "config", metadata: ["server": spec.id])
        }
        for spec in added {
            log.append("server \(spec.id) added", event: "config", metadata: ["server": spec.id])
        }
        await startConnections((restarting + added).filter { !$0.disabled }, cause: span?.context)
        return changes
    }
}

extension ServerLifecycle {
    /// An operator's change as a `config.change` span, when tracing is on.
    fileprivate func changeSpan(_ change: String, server: String?) -> TraceSpan? {
        owners.dispatcher.tracer.map { RequestSpans.configChange($0, change, server: server) }
    }

    fileprivate func endChange(_ span: TraceSpan?) {
        if let span { owners.dispatcher.tracer?.end(span) }
    }
}
