import YrdenConfig

/// Why an operator's change to the set of servers was refused.
package enum ControlError: Error, Sendable, Hashable {
    case unknownServer(String)
    case duplicateServer(String)
    /// The change conflicts with the server's current state (connecting a disabled server).
    case conflict(String)
}

/// What a reconcile did, server by server.
package struct ReconcileChanges: Sendable, Hashable {
    package var added: [String] = []
    package var removed: [String] = []
    package var restarted: [String] = []
    package var unchanged: [String] = []
}

extension Gateway {
    /// Adds a server and starts connecting it (unless disabled); every session hears of its tools once it is up.
    package func addServer(_ spec: ServerSpec) throws(ControlError) {
        let added = update { snapshot -> Bool in
            guard snapshot.links[spec.id] == nil else { return false }
            snapshot.links[spec.id] = ServerLink(spec: spec)
            snapshot.order.append(spec.id)
            return true
        }
        guard added else { throw .duplicateServer(spec.id) }
        log.append("server \(spec.id) added", event: "config", metadata: ["server": spec.id])
        if !spec.disabled { startSupervisor(spec) }
    }

    /// Replaces a server's spec. The server is restarted only when the spec differs; `true` when it was.
    @discardableResult
    package func replaceServer(_ spec: ServerSpec) async throws(ControlError) -> Bool {
        guard let old = snapshot.links[spec.id]?.spec else { throw .unknownServer(spec.id) }
        guard old != spec else { return false }
        await supervisors.stop(spec.id)
        update { snapshot in
            guard snapshot.links[spec.id] != nil else { return }
            var link = ServerLink(spec: spec, log: snapshot.links[spec.id]?.log)
            link.state = spec.disabled ? .disabled : .idle
            snapshot.links[spec.id] = link
        }
        log.append("server \(spec.id) reconfigured", event: "config", metadata: ["server": spec.id])
        if !spec.disabled { startSupervisor(spec) }
        return true
    }

    /// Stops a server (its child process is gone when this returns) and removes it and its tools.
    package func removeServer(_ id: String) async throws(ControlError) {
        guard snapshot.links[id] != nil else { throw .unknownServer(id) }
        await supervisors.stop(id)
        update { snapshot in
            snapshot.links.removeValue(forKey: id)
            snapshot.order.removeAll { $0 == id }
        }
        oauth.remove(id)
        log.append("server \(id) removed", event: "config", metadata: ["server": id])
    }

    /// Starts connecting a server that is disconnected or gave up; a connected one is left as it is.
    package func connectServer(_ id: String) throws(ControlError) {
        guard let spec = snapshot.links[id]?.spec else { throw .unknownServer(id) }
        guard !spec.disabled else {
            throw .conflict("server \(id) is disabled; enable it (\"disabled\": false) before connecting it")
        }
        guard !supervisors.isRunning(id) else { return }
        publish(id) { $0.state = .idle }
        startSupervisor(spec)
    }

    /// Stops a server until it is connected again; its tools leave the aggregate.
    package func disconnectServer(_ id: String) async throws(ControlError) {
        guard snapshot.links[id] != nil else { throw .unknownServer(id) }
        await supervisors.stop(id)
        publish(id) { $0.state = $0.spec.disabled ? .disabled : .disconnected }
    }

    /// Stops and starts a server: a fresh process or connection, a fresh handshake and catalog.
    package func restartServer(_ id: String) async throws(ControlError) {
        try await disconnectServer(id)
        try connectServer(id)
    }

    /// Makes the running set of servers match `servers`: new ones are added, missing ones removed, changed
    /// ones restarted; the rest keep running untouched. The order of `servers` becomes the config order.
    package func reconcile(to servers: [ServerSpec]) async -> ReconcileChanges {
        var changes = ReconcileChanges()
        let current = snapshot
        let wanted = Set(servers.map(\.id))
        for id in current.order where !wanted.contains(id) {
            try? await removeServer(id)
            changes.removed.append(id)
        }
        for spec in servers {
            if current.links[spec.id] == nil {
                try? addServer(spec)
                changes.added.append(spec.id)
            } else if (try? await replaceServer(spec)) == true {
                changes.restarted.append(spec.id)
            } else {
                changes.unchanged.append(spec.id)
            }
        }
        update { snapshot in snapshot.order = servers.map(\.id).filter { snapshot.links[$0] != nil } }
        return changes
    }
}
