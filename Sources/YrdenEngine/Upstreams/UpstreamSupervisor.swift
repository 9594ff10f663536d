import Logging
import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// Keeps one upstream connected for as long as the gateway runs.
///
/// Connect, handshake, list everything, publish; then follow the upstream's notifications, expire overdue
/// requests and ping it, until the connection drops. Then publish the failure (which fails nothing twice:
/// the client already failed its calls), wait out the backoff, and start over. Cancellation stops it, and the
/// upstream is always shut down properly on the way out.
struct UpstreamSupervisor: Sendable {
    let spec: ServerSpec
    let gateway: Gateway
    let logger: Logger

    static let pingInterval: Duration = .seconds(30)
    static let sweepInterval: Duration = .milliseconds(250)
    static let missedPingsBeforeReconnect = 3

    func run() async {
        if let failure = spec.configFailure {
            // Starting it would only fail later and less clearly (a request without its token); it stays
            // failed until its config or the gateway's environment changes.
            gateway.publish(spec.id) { $0.state = .failed(UpstreamError(.config, failure), attempt: 1, retryAt: nil) }
            note(.error, "upstream not started: its config cannot be used", metadata: ["reason": "\(failure)"])
            return
        }
        let backoff = Self.backoff(for: spec.reconnect)
        let secrets = ServerSecrets(spec)
        var attempt = 0
        while !Task.isCancelled {
            attempt += 1
            gateway.publish(spec.id) { $0.state = .connecting(attempt: attempt) }
            let startedAt = ContinuousClock.now
            let error = secrets.scrub(await connectAndServe(attempt: attempt))
            if Task.isCancelled { break }
            if ContinuousClock.now - startedAt >= Backoff.stableAfter { attempt = 1 }
            guard let backoff, let delay = backoff.delay(forAttempt: attempt) else {
                gateway.publish(spec.id) { $0.state = .failed(error, attempt: attempt, retryAt: nil) }
                note(.error, "upstream failed; not retrying", metadata: failureMetadata(error))
                return
            }
            let retryAt = ContinuousClock.now + delay
            gateway.publish(spec.id) { $0.state = .failed(error, attempt: attempt, retryAt: retryAt) }
            var metadata = failureMetadata(error)
            metadata["retryIn"] = "\(delay)"
            note(.warning, "upstream failed; retrying", metadata: metadata)
            try? await Task.sleep(until: retryAt)
            if !Task.isCancelled { GatewayMetrics.recordReconnect(server: spec.id) }
        }
        gateway.publish(spec.id) { $0.state = .stopped }
    }

    /// Logs a change in the server's life, and keeps it in the server's ring for the admin API.
    private func note(_ level: Logger.Level, _ message: String, metadata: Logger.Metadata) {
        logger.log(level: level, "\(message)", metadata: metadata)
        var strings: [String: String] = [:]
        for (key, value) in metadata { strings[key] = "\(value)" }
        gateway.logRing(spec.id)?.append(message, level: level, event: "state", metadata: strings)
    }

    /// The reason, plus what the server last wrote to stderr: usually the real cause (a missing module, a bad
    /// token), and otherwise visible only at debug level.
    private func failureMetadata(_ error: UpstreamError) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["reason": "\(error)", "kind": "\(error.kind.rawValue)"]
        if let status = error.httpStatus { metadata["httpStatus"] = "\(status)" }
        let tail = (gateway.logRing(spec.id)?.recent() ?? []).filter { $0.event == "stderr" }.suffix(3).map(\.message)
        if !tail.isEmpty { metadata["stderr"] = "\(tail.joined(separator: " | "))" }
        return metadata
    }

    private static func backoff(for policy: ReconnectPolicy) -> Backoff? {
        switch policy {
        case .never: nil
        case .backoff(let initial, let maximum, let attempts):
            Backoff(initial: initial, maximum: maximum, maxAttempts: attempts)
        }
    }

    /// One connection's life; returns why it ended.
    private func connectAndServe(attempt: Int) async -> UpstreamError {
        let client: UpstreamClient
        let handshake: UpstreamHandshake
        do {
            (client, handshake) = try await connect(attempt: attempt)
        } catch {
            return error
        }
        let result = await serve(client, handshake: handshake)
        await shielded { await client.close() }
        gateway.publish(spec.id) { link in
            link.client = nil
            link.handshake = nil
            link.catalog = nil
        }
        return result
    }

    /// Lists everything, publishes the connected server, then follows it. Overdue requests are expired (and
    /// the upstream pinged) from the first list on, so an upstream that never answers one fails in time.
    private func serve(_ client: UpstreamClient, handshake: UpstreamHandshake) async -> UpstreamError {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.keepAlive(client) }
            defer { group.cancelAll() }
            let loader = CatalogLoader(
                client: client,
                capabilities: handshake.capabilities,
                timeout: spec.timeouts.request
            )
            let catalog: ServerCatalog
            do throws(UpstreamError) {
                catalog = try await loader.loadAll()
            } catch {
                return error
            }
            gateway.publish(spec.id) { link in
                link.client = client
                link.handshake = handshake
                link.catalog = catalog
                link.state = .connected(since: .now)
            }
            note(
                .info,
                "upstream connected",
                metadata: [
                    "protocolVersion": "\(handshake.protocolVersion)", "tools": "\(catalog.tools.count)",
                    "prompts": "\(catalog.prompts.count)", "resources": "\(catalog.resources.count)",
                ]
            )
            if let session = gateway.oauth.existing(spec.id) {
                group.addTask { await self.watchTokens(session, client) }
            }
            return await follow(client, loader: loader, catalog: catalog)
        }
    }

    /// Reacts to what the upstream says until its connection closes or the supervisor is cancelled.
    ///
    /// Each list change reloads the lists it names here, outside the gateway's lock (where the items'
    /// digests are computed), and publishes the whole catalog. Refreshes are at least
    /// ``minimumRefreshInterval`` apart: a flood of changes costs a few reloads a second, not a busy loop.
    private func follow(_ client: UpstreamClient, loader: CatalogLoader, catalog: ServerCatalog) async -> UpstreamError
    {
        let stopped = UpstreamError(.notConnected, "the server was stopped")
        var catalog = catalog
        var lastRefresh: ContinuousClock.Instant?
        for await event in client.events {
            switch event {
            case .closed(let error):
                return error
            case .notification(let notification):
                guard let kinds = Self.kindsChanged(by: notification.method) else { continue }
                if let lastRefresh {
                    try? await Task.sleep(until: lastRefresh + Self.minimumRefreshInterval)
                }
                if Task.isCancelled { return stopped }
                lastRefresh = .now
                var refreshed = catalog
                do throws(UpstreamError) {
                    for kind in kinds { refreshed[kind] = try await loader.load(kind) }
                } catch {
                    if Task.isCancelled { return stopped }
                    let reason = ServerSecrets(spec).scrub(error.message)
                    logger.warning("could not refresh the upstream's lists", metadata: ["reason": "\(reason)"])
                    continue
                }
                catalog = refreshed
                gateway.publish(spec.id) { $0.catalog = refreshed }
            }
        }
        return stopped
    }

    static let minimumRefreshInterval: Duration = .milliseconds(200)

    private static func kindsChanged(by method: String) -> [ServerCatalog.Kind]? {
        switch method {
        case MCPMethod.toolsListChanged: [.tools]
        case MCPMethod.promptsListChanged: [.prompts]
        case MCPMethod.resourcesListChanged: [.resources, .resourceTemplates]
        default: nil
        }
    }

    /// Expires overdue requests, counts the notifications the client shed, and pings; a dead upstream is
    /// closed, which ends ``follow``.
    private func keepAlive(_ client: UpstreamClient) async {
        var sincePing: Duration = .zero
        var missed = 0
        var shed = (dropped: 0, coalesced: 0)
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.sweepInterval)
            client.expireOverdueRequests()
            let counts = client.events.counts
            GatewayMetrics.recordShedNotifications(
                server: spec.id,
                coalesced: counts.coalesced - shed.coalesced,
                dropped: counts.dropped - shed.dropped
            )
            shed = counts
            sincePing += Self.sweepInterval
            guard sincePing >= Self.pingInterval else { continue }
            sincePing = .zero
            do {
                _ = try await client.request(
                    MCPMethod.ping,
                    params: nil,
                    options: RequestOptions(timeout: .seconds(10))
                )
                missed = 0
            } catch {
                if Task.isCancelled { return }
                missed += 1
                logger.warning("upstream missed a ping", metadata: ["missed": "\(missed)"])
                if missed >= Self.missedPingsBeforeReconnect {
                    await shielded { await client.close() }
                    return
                }
            }
        }
    }
}

/// Runs `body` to completion even when the calling task is cancelled: shutting an upstream down must take
/// its full, bounded course (close stdin, wait, SIGTERM, wait, SIGKILL) exactly when the gateway stops.
func shielded(_ body: @escaping @Sendable () async -> Void) async {
    await Task { await body() }.value
}
