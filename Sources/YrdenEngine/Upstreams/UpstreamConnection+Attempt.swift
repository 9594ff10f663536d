import Logging
import YrdenConfig
import YrdenProtocol
import YrdenTransport

extension UpstreamConnection {
    static let pingInterval: Duration = .seconds(30)
    static let pingTimeout: Duration = .seconds(10)
    static let missedPingsBeforeReconnect = 3
    /// A flood of list changes costs a few reloads a second, not a busy loop.
    static let minimumRefreshInterval: Duration = .milliseconds(200)

    /// One attempt's life: its end is reported as a failure, unless the attempt was closed (cancelled), in
    /// which case nobody is listening for it. Whatever it opened is closed before it returns.
    func connectAndServe(attempt: Int) async {
        let error = await OwnRequestSpans.$cause.withValue(attempt == 1 ? cause : nil) { await session() }
        guard !Task.isCancelled else { return }
        // A config failure quotes the reference as written, which holds no value: nothing to hide in it.
        inbox.report(.failed(error.kind == .config ? error : ServerSecrets(spec).scrub(error), at: time.now))
    }

    /// Signs in, connects, lists, reports the connection, and serves it until it ends; returns why it did.
    private func session() async -> UpstreamError {
        if let failure = spec.configFailure {
            // Starting it would only fail later and less clearly (a request without its token).
            return UpstreamError(.config, failure)
        }
        let opened: Opened
        switch await openInChildTask() {
        case .success(let value): opened = value
        case .failure(let error): return error
        }
        let ended = await serve(opened)
        if let users = opened.users {
            owners.dispatcher.userSessions.detach(users, for: spec.id)
            await shielded { await users.closeAll() }
        }
        await shielded { await opened.client.close() }
        return ended
    }

    /// What opening a connection leaves for serving it.
    private struct Opened: Sendable {
        var client: UpstreamClient
        var signIn: (any UpstreamSignIn)?
        var loader: CatalogLoader
        var catalog: ServerCatalog
        /// Users' own sessions, for a `perUser` server of the handshake era.
        var users: UserSessions?
    }

    /// ``open()`` in a child task that has ended when this returns. Signing in, connecting and listing go
    /// kilobytes deep in async frames, and a task keeps the memory of its deepest stack until it ends: run in
    /// the task that then serves the connection, that memory would stay for the connection's whole life, for
    /// each of hundreds of servers.
    @inline(never)
    private func openInChildTask() async -> Result<Opened, UpstreamError> {
        async let opened = open()
        return await opened
    }

    /// Signs in, connects and lists; a client opened is closed again if listing fails.
    private func open() async -> Result<Opened, UpstreamError> {
        let signIn: (any UpstreamSignIn)?
        let client: UpstreamClient
        let handshake: UpstreamHandshake
        do throws(UpstreamError) {
            signIn = try await self.signIn()
            (client, handshake) = try await connect(authorizer: signIn?.authorizer)
        } catch {
            return .failure(error)
        }
        // In place before the connection is announced, so that no user's call goes over the server's own session.
        let users = userSessions(over: client)
        if let users { owners.dispatcher.userSessions.attach(users, for: spec.id) }
        do throws(UpstreamError) {
            let (loader, catalog) = try await announce(client, handshake: handshake)
            return .success(Opened(client: client, signIn: signIn, loader: loader, catalog: catalog, users: users))
        } catch {
            if let users {
                owners.dispatcher.userSessions.detach(users, for: spec.id)
                await shielded { await users.closeAll() }
            }
            await shielded { await client.close() }
            return .failure(error)
        }
    }

    /// Follows the upstream, pings it and watches its sign-in until one of them ends the connection (or the
    /// attempt is closed).
    private func serve(_ opened: Opened) async -> UpstreamError {
        let (client, signIn, loader, catalog) = (opened.client, opened.signIn, opened.loader, opened.catalog)
        return await withTaskGroup(of: UpstreamError?.self) { group in
            group.addTask { [loader] in await self.follow(client, loader: loader, catalog: catalog) }
            group.addTask { [loader] in await self.keepPinging(client, spans: loader.spans) }
            if let users = opened.users {
                group.addTask {
                    await users.expireIdle()
                    return nil
                }
            }
            if let signIn {
                group.addTask {
                    await signIn.invalidated()
                    guard !Task.isCancelled else { return nil }
                    self.logger.warning("the server's OAuth tokens are no longer valid; signing in again")
                    return UpstreamError(.auth, "the server's OAuth tokens are no longer valid; signing in again")
                }
            }
            let reason = await group.next() ?? nil
            group.cancelAll()
            return reason ?? UpstreamError(.notConnected, "the server was stopped")
        }
    }

    /// Lists everything and reports the connection; restores what sessions asked of the server before it
    /// (re)connected. Returns the loader and the catalog that following the server needs.
    private func announce(
        _ client: UpstreamClient,
        handshake: UpstreamHandshake
    ) async throws(UpstreamError) -> (CatalogLoader, ServerCatalog) {
        // The list changes and the resources clients followed before the server (re)connected are asked for
        // before the lists are read, so that no change between the two is missed.
        await owners.dispatcher.follow(
            spec.id,
            through: client,
            capabilities: handshake.capabilities,
            timeout: spec.timeouts.request
        )
        var loader = CatalogLoader(client: client, capabilities: handshake.capabilities, timeout: spec.timeouts.request)
        loader.spans = ownRequestSpans(protocolVersion: handshake.protocolVersion)
        if client.takesParamHeaders, case .http = spec.transport {
            loader.dropsInvalidParamHeaders = true
            let ring = owners.registry.logRing(spec.id)
            let logger = self.logger
            loader.log = { line in
                ring?.append(line, level: .warning, event: "catalog")
                logger.warning("\(line)")
            }
        }
        let catalog = try await loader.loadAll()
        loader.spans?.parent = nil  // what follows (refreshes, pings) is no operator's change
        let pinned = owners.pinning.pinTools(of: spec.id, catalog)
        inbox.report(
            .connected(
                LiveUpstream(client: client, handshake: handshake, catalog: catalog, pinned: pinned),
                at: time.now
            )
        )
        note(
            .info,
            "upstream connected",
            metadata: [
                "protocolVersion": "\(handshake.protocolVersion)", "tools": "\(catalog.tools.count)",
                "prompts": "\(catalog.prompts.count)", "resources": "\(catalog.resources.count)",
            ]
        )
        if let level = owners.dispatcher.upstreamLogLevel {
            // Sessions asked for log messages before this server connected.
            await client.setLogLevel(level, capabilities: handshake.capabilities, timeout: spec.timeouts.request)
        }
        return (loader, catalog)
    }

    /// Reacts to what the upstream says until its connection closes (returns why) or the attempt is closed.
    ///
    /// Each list change reloads the lists it names here, outside the gateway's lock (where the items'
    /// digests are computed), and publishes the whole catalog; refreshes are ``minimumRefreshInterval`` apart.
    private func follow(_ client: UpstreamClient, loader: CatalogLoader, catalog: ServerCatalog) async -> UpstreamError?
    {
        var catalog = catalog
        var lastRefresh: ContinuousClock.Instant?
        for await event in client.events {
            switch event {
            case .closed(let error):
                return error
            case .notification(let notification) where notification.method == MCPMethod.message:
                owners.dispatcher.relayLog(notification.params ?? [:], from: spec.id)
            case .notification(let notification) where notification.method == MCPMethod.elicitationComplete:
                owners.dispatcher.relayElicitationComplete(notification)
            case .notification(let notification) where notification.method == MCPMethod.resourcesUpdated:
                owners.dispatcher.relayResourceUpdated(notification.params ?? [:], from: spec.id)
            case .notification(let notification):
                guard let kinds = Self.kindsChanged(by: notification.method) else { continue }
                if let lastRefresh {
                    try? await time.sleep(until: lastRefresh + Self.minimumRefreshInterval)
                }
                if Task.isCancelled { return nil }
                lastRefresh = time.now
                var refreshed = catalog
                do throws(UpstreamError) {
                    for kind in kinds { try await loader.load(kind, into: &refreshed) }
                } catch {
                    if Task.isCancelled { return nil }
                    let reason = ServerSecrets(spec).scrub(error.message)
                    logger.warning("could not refresh the upstream's lists", metadata: ["reason": "\(reason)"])
                    continue
                }
                catalog = refreshed
                if Task.isCancelled { return nil }
                let pinned = kinds.contains(.tools) ? owners.pinning.pinTools(of: spec.id, refreshed) : nil
                await publishLink { [refreshed] in
                    $0.catalog = refreshed
                    if let pinned { $0.adopt(pinned.marks) }
                }
                owners.events.publish(pinned?.announcements ?? [])
            }
        }
        return nil
    }

    private static func kindsChanged(by method: String) -> [ServerCatalog.Kind]? {
        switch method {
        case MCPMethod.toolsListChanged: [.tools]
        case MCPMethod.promptsListChanged: [.prompts]
        case MCPMethod.resourcesListChanged: [.resources, .resourceTemplates]
        default: nil
        }
    }

    /// Probes the server every ``pingInterval`` (``UpstreamClient/probe(timeout:)``),
    /// sleeping until the next ping is due; returns after
    /// ``missedPingsBeforeReconnect`` missed in a row (the connection is then replaced), or `nil` once the
    /// attempt is closed. Each ping is a span of its own when tracing is on (`spans`).
    private func keepPinging(_ client: UpstreamClient, spans: OwnRequestSpans?) async -> UpstreamError? {
        var missed = 0
        while true {
            do { try await time.sleep(until: time.now + Self.pingInterval) } catch { return nil }
            do {
                let probe = { () async throws(UpstreamError) in try await client.probe(timeout: Self.pingTimeout) }
                if let spans { try await spans.traced(client.probeMethod, probe) } else { try await probe() }
                missed = 0
            } catch {
                if Task.isCancelled { return nil }
                missed += 1
                logger.warning("upstream missed a ping", metadata: ["missed": "\(missed)"])
                if missed >= Self.missedPingsBeforeReconnect {
                    return UpstreamError(.timeout, "the server missed \(missed) pings in a row")
                }
            }
        }
    }
}
