import Logging
import YrdenConfig
import YrdenProtocol
import YrdenTelemetry
import YrdenTransport

/// What a connected attempt hands its connection to publish, all at once with the `connected` state.
struct LiveUpstream: Sendable {
    var client: UpstreamClient
    var handshake: UpstreamHandshake
    var catalog: ServerCatalog
    /// What pinning does to the catalog's tools, and the changes it found, announced once published.
    var pinned: PinnedTools
}

/// The one owner of an upstream's life, from the moment the server is added (or reconfigured) until it is
/// removed, reconfigured again or the gateway stops.
///
/// Its loop is the only code that assigns the server's link: it feeds operators' commands and its attempts'
/// reports to an ``UpstreamLifecycle`` and carries out the actions it returns. An attempt (sign in, connect,
/// handshake, list, then follow and ping) runs as a child task of the loop, so closing it is cancelling it.
struct UpstreamConnection: Sendable {
    let spec: ServerSpec
    /// The owners it reports to (registry, dispatch, pinning, events, connector), not the gateway.
    let owners: ConnectionOwners
    let logger: Logger
    /// The token the server's link carries while this connection owns it; a late write of an older
    /// connection of the same server finds another token and is dropped.
    let owner: UInt64
    /// The previous connection of the same server: nothing is opened before it has finished, so two runs
    /// of one server (two child processes) never overlap.
    let previous: Completion?
    /// The operator's change that started this connection (its `config.change` span): the first attempt's
    /// handshake and lists are its children; later attempts are traces of their own.
    var cause: SpanContext?
    let inbox = ConnectionInbox()
    /// Signalled when ``run()`` has returned: everything this connection opened has been closed.
    let finished = Completion()

    typealias Action = UpstreamLifecycle.Action

    var time: any TimeSource { owners.connector.time }

    /// Runs until stopped by a `stop` command or by cancellation (the gateway stopping).
    func run() async {
        defer { end() }
        if let previous { await previous.wait() }
        // A config that cannot be used fails every attempt the same way: no point retrying it.
        var life = UpstreamLifecycle(policy: spec.configFailure == nil ? spec.reconnect : .never)
        var done: [Completion] = []
        // Cancelled while the previous connection was still closing: the gateway is stopping, open nothing.
        var actions = life.handle(Task.isCancelled ? .stop : .connect)
        while true {
            var opening: Int?
            for action in actions {
                if case .openAttempt(let attempt) = action { opening = attempt } else { await perform(action, life) }
            }
            done.forEach { $0.signal() }
            done.removeAll()
            if life.isStopped { return }
            if let opening {
                actions = await attempt(opening, &life, done: &done)
                continue
            }
            if let retryAt = life.retryAt {
                switch await inbox.next(until: retryAt, time: time) {
                case .message(let message):
                    actions = await handle(message, &life, done: &done)
                case .deadline:
                    GatewayMetrics.recordReconnect(server: spec.id)
                    actions = life.handle(.retryDue)
                case .cancelled:
                    actions = life.handle(.stop)
                }
            } else if let message = await inbox.next() {
                actions = await handle(message, &life, done: &done)
            } else {
                actions = life.handle(.stop)
            }
        }
    }

    /// Runs attempt `number` as a child task while the loop goes on reading the inbox; returns the actions
    /// that follow its end: it failed (the connection is lost), or a command closed it (then only once the
    /// attempt has finished closing what it opened).
    private func attempt(
        _ number: Int,
        _ life: inout UpstreamLifecycle,
        done: inout [Completion]
    ) async -> [Action] {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.connectAndServe(attempt: number) }
            while true {
                let actions: [Action]
                if let message = await inbox.next() {
                    actions = await handle(message, &life, done: &done)
                } else {
                    actions = life.handle(.stop)
                }
                if actions.contains(.closeConnection) {
                    group.cancelAll()
                    await group.waitForAll()
                    inbox.discardReports()
                    return actions.filter { $0 != .closeConnection }
                }
                guard life.isAttemptOpen else {
                    await group.waitForAll()
                    return actions
                }
                for action in actions { await perform(action, life) }
                done.forEach { $0.signal() }
                done.removeAll()
            }
        }
    }

    /// Feeds one message to the machine. A connection's report is published here, with its client, handshake
    /// and catalog, in the same change as its `connected` state.
    private func handle(
        _ message: ConnectionInbox.Message,
        _ life: inout UpstreamLifecycle,
        done: inout [Completion]
    ) async -> [Action] {
        switch message {
        case .command(let event, let completion):
            done.append(completion)
            return life.handle(event)
        case .report(.signInNeeded):
            return life.handle(.signInNeeded)
        case .report(.signedIn):
            return life.handle(.signedIn)
        case .report(.failed(let error, let at)):
            return life.handle(.failed(error, at: at))
        case .report(.connected(let live, let at)):
            let actions = life.handle(.connected(at: at))
            defer { owners.events.publish(live.pinned.announcements) }
            guard actions.contains(.publish(.connected(since: at))) else { return actions }
            await publishLink { link in
                link.state = .connected(since: at)
                link.client = live.client
                link.handshake = live.handshake
                link.lastHandshake = live.handshake
                link.catalog = live.catalog
                link.adopt(live.pinned.marks)
                link.lastFailure = nil
            }
            return actions.filter { $0 != .publish(.connected(since: at)) }
        }
    }

    /// Carries out an action other than opening an attempt (which the loop runs) and closing one (which
    /// ``attempt(_:_:done:)`` does).
    private func perform(_ action: Action, _ life: UpstreamLifecycle) async {
        switch action {
        case .publish(let state):
            await publishLink { link in
                link.state = state
                if !state.isConnected {
                    link.client = nil
                    link.handshake = nil
                }
                if let error = state.lastError { link.lastFailure = UpstreamFailure(error, at: WallClock.now()) }
            }
        case .scheduleRetry(let retryAt):
            guard let error = life.state.lastError else { return }
            var metadata = failureMetadata(error)
            metadata["retryIn"] = "\(retryAt - time.now)"
            note(.warning, "upstream failed; retrying", metadata: metadata)
        case .giveUp(let error):
            if error.kind == .config {
                note(.error, "upstream not started: its config cannot be used", metadata: ["reason": "\(error)"])
            } else {
                note(.error, "upstream failed; not retrying", metadata: failureMetadata(error))
            }
        case .openAttempt, .closeConnection:
            break
        }
    }

    /// The loop has returned: commands that arrived after the stop are answered, and waiters released.
    private func end() {
        _ = inbox.close().map { $0.signal() }
        finished.signal()
    }

    /// Applies `change` to the server's link while this connection owns it.
    func publishLink(_ change: @escaping @Sendable (inout ServerLink) -> Void) async {
        await owners.registry.publish(spec.id, owner: owner, change)
    }

    /// Logs a change in the server's life, and keeps it in the server's ring for the admin API.
    func note(_ level: Logger.Level, _ message: String, metadata: Logger.Metadata) {
        logger.log(level: level, "\(message)", metadata: metadata)
        var strings: [String: String] = [:]
        for (key, value) in metadata { strings[key] = "\(value)" }
        owners.registry.logRing(spec.id)?.append(message, level: level, event: "state", metadata: strings)
    }

    /// The reason, plus what the server last wrote to stderr: usually the real cause (a missing module, a bad
    /// token), and otherwise visible only at debug level.
    private func failureMetadata(_ error: UpstreamError) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["reason": "\(error)", "kind": "\(error.kind.rawValue)"]
        if let status = error.httpStatus { metadata["httpStatus"] = "\(status)" }
        let tail = (owners.registry.logRing(spec.id)?.recent() ?? []).filter { $0.event == "stderr" }.suffix(3).map(
            \.message
        )
        if !tail.isEmpty { metadata["stderr"] = "\(tail.joined(separator: " | "))" }
        return metadata
    }
}

/// Runs `body` to completion even when the calling task is cancelled: shutting an upstream down must take
/// its full, bounded course (close stdin, wait, SIGTERM, wait, SIGKILL) exactly when the gateway stops.
func shielded(_ body: @escaping @Sendable () async -> Void) async {
    // Unstructured on purpose: a child task would be cancelled with its parent, which is what this avoids.
    await Task { await body() }.value
}
