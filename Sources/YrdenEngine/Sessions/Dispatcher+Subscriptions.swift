import Logging
import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// Resource subscriptions: a client follows a resource (`resources/subscribe` in a session, or a listen
/// stream's `resourceSubscriptions`), the upstream that owns it is asked to follow it once however many
/// clients do, and its `notifications/resources/updated` reach the followers only. How an upstream is asked
/// is its era's business (``UpstreamClient/follow(_:capabilities:timeout:)``).
extension Dispatcher {
    /// Whether any connected upstream lets its resources be followed.
    static func offersSubscriptions(_ snapshot: Snapshot, scope: CatalogScope = .gateway) -> Bool {
        snapshot.links.contains { id, link in
            snapshot.includes(id, in: scope) && link.state.isConnected
                && link.handshake?.capabilities["resources"]?["subscribe"]?.boolValue == true
        }
    }

    /// Asks `server`, through its connected `client`, for its list changes and for the resources of its that
    /// clients follow now; returns the URIs it refused, with why.
    @discardableResult
    func follow(
        _ server: String,
        through client: UpstreamClient,
        capabilities: JSONObject,
        timeout: Duration
    ) async -> [String: JSONRPCError] {
        await client.follow(resourceSubscriptions.uris(on: server), capabilities: capabilities, timeout: timeout)
    }

    /// `session` follows `uri`: the upstream that owns it is asked to if nobody followed it yet. Throws
    /// what the client should hear when the resource cannot be followed.
    func subscribe(_ session: DownstreamSession, to uri: String) async throws(JSONRPCError) {
        await releaseEnded()
        let snapshot = self.snapshot
        guard let server = try views.resourceServer(uri, in: session.scope, snapshot) else {
            throw .resourceNotFound(uri)
        }
        guard let link = snapshot.links[server] else { throw .resourceNotFound(uri) }
        guard let client = link.client, link.state.isConnected else {
            throw .upstreamUnavailable(CatalogViews.notConnectedMessage(server, link.state), server: server)
        }
        let capabilities = link.handshake?.capabilities ?? [:]
        guard capabilities["resources"]?["subscribe"]?.boolValue == true else {
            throw .invalidParams("MCP server '\(server)' does not let its resources be followed")
        }
        let key = ResourceSubscriptions.Key(server: server, uri: uri)
        guard let first = resourceSubscriptions.subscribe(session, to: key) else {
            throw .invalidParams("this client follows \(ResourceSubscriptions.perSession) resources already")
        }
        guard first else { return }
        let refused = await follow(
            server,
            through: client,
            capabilities: capabilities,
            timeout: link.spec.timeouts.request
        )
        if let error = refused[uri] {
            _ = resourceSubscriptions.unsubscribe(session, from: uri)
            throw error
        }
    }

    /// `session` no longer follows `uri`; the upstream is unsubscribed when nobody does.
    func unsubscribe(_ session: DownstreamSession, from uri: String) async {
        var released = resourceSubscriptions.prune()
        if let last = resourceSubscriptions.unsubscribe(session, from: uri) { released.append(last) }
        await unsubscribeUpstream(released)
    }

    /// The resources a listen stream asks to follow, as far as they can be: the URIs followed.
    func follow(_ uris: [String], for session: DownstreamSession) async -> [String] {
        var followed: [String] = []
        for uri in uris.prefix(ResourceSubscriptions.perSession) {
            do throws(JSONRPCError) {
                try await subscribe(session, to: uri)
                followed.append(uri)
            } catch {
                logger.info("a listen stream cannot follow \(uri): \(error.message)")
            }
        }
        return followed
    }

    /// An upstream's `notifications/resources/updated`: to the clients that follow that resource.
    func relayResourceUpdated(_ params: JSONValue, from server: String) {
        guard let uri = params["uri"]?.stringValue else { return }
        let update = JSONRPCMessage.notification(
            JSONRPCNotification(method: MCPMethod.resourcesUpdated, params: ["uri": .string(uri)])
        )
        for session in resourceSubscriptions.followers(of: uri, on: server) { session.deliver(update) }
    }

    /// Unsubscribes upstreams from what sessions that ended followed last.
    private func releaseEnded() async {
        await unsubscribeUpstream(resourceSubscriptions.prune())
    }

    private func unsubscribeUpstream(_ keys: [ResourceSubscriptions.Key]) async {
        let snapshot = self.snapshot
        for server in Set(keys.map(\.server)) {
            guard let link = snapshot.links[server], let client = link.client, link.state.isConnected else { continue }
            let capabilities = link.handshake?.capabilities ?? [:]
            await follow(server, through: client, capabilities: capabilities, timeout: link.spec.timeouts.request)
        }
    }
}
