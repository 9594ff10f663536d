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
        let backoff = Self.backoff(for: spec.reconnect)
        var attempt = 0
        while !Task.isCancelled {
            attempt += 1
            gateway.publish(spec.id) { $0.state = .connecting(attempt: attempt) }
            let startedAt = ContinuousClock.now
            let error = await connectAndServe()
            if Task.isCancelled { break }
            if ContinuousClock.now - startedAt >= Backoff.stableAfter { attempt = 1 }
            guard let backoff, let delay = backoff.delay(forAttempt: attempt) else {
                gateway.publish(spec.id) { $0.state = .failed(error, attempt: attempt, retryAt: nil) }
                logger.error("upstream failed; not retrying", metadata: failureMetadata(error))
                return
            }
            let retryAt = ContinuousClock.now + delay
            gateway.publish(spec.id) { $0.state = .failed(error, attempt: attempt, retryAt: retryAt) }
            var metadata = failureMetadata(error)
            metadata["retryIn"] = "\(delay)"
            logger.warning("upstream failed; retrying", metadata: metadata)
            try? await Task.sleep(until: retryAt)
        }
        gateway.publish(spec.id) { $0.state = .stopped }
    }

    /// The reason, plus what the server last wrote to stderr: usually the real cause (a missing module, a bad
    /// token), and otherwise visible only at debug level.
    private func failureMetadata(_ error: UpstreamError) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["reason": "\(error)"]
        let tail = gateway.logRing(spec.id)?.recent(3).map(\.line) ?? []
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
    private func connectAndServe() async -> UpstreamError {
        let client: UpstreamClient
        do {
            client = try openClient()
        } catch {
            return error
        }
        let result = await serve(client)
        await shielded { await client.close() }
        gateway.publish(spec.id) { link in
            link.client = nil
            link.handshake = nil
            link.catalog = nil
        }
        return result
    }

    private func openClient() throws(UpstreamError) -> UpstreamClient {
        switch spec.transport {
        case .stdio(let command, let args, let env, let cwd):
            let stdio = StdioCommand(command: command, arguments: args, environment: env, workingDirectory: cwd)
            return try UpstreamClient(
                open: { handler throws(UpstreamError) in try StdioChannel(command: stdio, handler: handler) },
                log: channelLog(stream: "stderr")
            )
        case .http(let url, let headers, let auth, _):
            // Legacy HTTP+SSE fallback is not attempted yet: a server that refuses the POST fails to connect.
            if case .oauth = auth {
                throw UpstreamError(.auth, "OAuth for HTTP upstreams is not supported by this build yet")
            }
            guard let httpClient = gateway.connector.httpClient else {
                throw UpstreamError(.network, "this gateway was started without an HTTP client")
            }
            let endpoint = StreamableHTTPEndpoint(
                url: url,
                headers: headers,
                requestTimeout: spec.timeouts.request,
                toolCallTimeout: spec.timeouts.toolCall
            )
            return try UpstreamClient(
                open: { handler in StreamableHTTPChannel(endpoint: endpoint, client: httpClient, handler: handler) },
                log: channelLog(stream: "http")
            )
        case .sse:
            throw UpstreamError(.protocol, "\(spec.transport.kindName) upstreams are not supported by this build yet")
        }
    }

    /// Where a channel's diagnostics go: the server's log ring (the admin API's view) and debug logging.
    private func channelLog(stream: String) -> @Sendable (String) -> Void {
        let ring = gateway.logRing(spec.id)
        let logger = self.logger
        return { line in
            ring?.append(line)
            logger.debug("\(line)", metadata: ["yrden.stream": "\(stream)"])
        }
    }

    private func serve(_ client: UpstreamClient) async -> UpstreamError {
        let handshake: UpstreamHandshake
        let catalog: ServerCatalog
        do {
            handshake = try await client.initialize(
                clientInfo: Gateway.clientInfo,
                capabilities: Gateway.upstreamClientCapabilities,
                timeout: spec.timeouts.connect
            )
            catalog = try await CatalogLoader(
                client: client,
                capabilities: handshake.capabilities,
                timeout: spec.timeouts.request
            )
            .loadAll()
        } catch {
            return error
        }
        gateway.publish(spec.id) { link in
            link.client = client
            link.handshake = handshake
            link.catalog = catalog
            link.state = .connected(since: .now)
        }
        logger.info(
            "upstream connected",
            metadata: [
                "protocolVersion": "\(handshake.protocolVersion)", "tools": "\(catalog.tools.count)",
                "prompts": "\(catalog.prompts.count)", "resources": "\(catalog.resources.count)",
            ]
        )
        return await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.keepAlive(client) }
            let reason = await follow(client, capabilities: handshake.capabilities)
            group.cancelAll()
            return reason
        }
    }

    /// Reacts to what the upstream says until its connection closes.
    private func follow(_ client: UpstreamClient, capabilities: JSONObject) async -> UpstreamError {
        let loader = CatalogLoader(client: client, capabilities: capabilities, timeout: spec.timeouts.request)
        for await event in client.events {
            switch event {
            case .closed(let error):
                return error
            case .notification(let notification):
                guard let kinds = Self.kindsChanged(by: notification.method) else { continue }
                do {
                    var refreshed: [(ServerCatalog.Kind, [JSONObject])] = []
                    for kind in kinds { refreshed.append((kind, try await loader.load(kind))) }
                    gateway.publish(spec.id) { link in
                        for (kind, items) in refreshed { link.catalog?[kind] = items }
                    }
                } catch {
                    logger.warning("could not refresh the upstream's lists", metadata: ["reason": "\(error)"])
                }
            }
        }
        return UpstreamError(.notConnected, "the gateway is shutting down")
    }

    private static func kindsChanged(by method: String) -> [ServerCatalog.Kind]? {
        switch method {
        case MCPMethod.toolsListChanged: [.tools]
        case MCPMethod.promptsListChanged: [.prompts]
        case MCPMethod.resourcesListChanged: [.resources, .resourceTemplates]
        default: nil
        }
    }

    /// Expires overdue requests and pings; a dead upstream is closed, which ends ``follow``.
    private func keepAlive(_ client: UpstreamClient) async {
        var sincePing: Duration = .zero
        var missed = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.sweepInterval)
            client.expireOverdueRequests()
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
