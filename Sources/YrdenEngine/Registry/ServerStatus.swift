import YrdenConfig
import YrdenOAuth
import YrdenTransport

/// One server as operators see it at one moment: its spec, its state, and what it offers through the gateway.
package struct ServerStatus: Sendable, Hashable {
    package var spec: ServerSpec
    package var state: ConnectionState
    /// What the server offers on the aggregated endpoint (after its tool filter and name conflicts); zero while
    /// it is not connected.
    package var counts: CatalogCounts
    package var handshake: UpstreamHandshake?
    /// Where an OAuth server's sign-in stands; `nil` for other servers.
    package var auth: OAuthProgress?
    /// The transport in use (``ServerLink/transportName``).
    package var transportName: String

    package var id: String { spec.id }
}

/// How many tools, prompts and resources one server contributes.
package struct CatalogCounts: Sendable, Hashable {
    package var tools = 0
    package var prompts = 0
    package var resources = 0
}

extension Gateway.Snapshot {
    /// The status of server `id`, or `nil` when there is no such server.
    package func status(of id: String) -> ServerStatus? {
        guard let link = links[id] else { return nil }
        var counts = CatalogCounts()
        if link.state.isConnected, let aggregated = catalog.counts[id] {
            counts = CatalogCounts(
                tools: aggregated.tools,
                prompts: aggregated.prompts,
                resources: aggregated.resources
            )
        }
        return ServerStatus(
            spec: link.spec,
            state: link.state,
            counts: counts,
            handshake: link.handshake,
            auth: link.auth,
            transportName: link.transportName
        )
    }

    /// Every server's status, in config order.
    package var statuses: [ServerStatus] { order.compactMap(status(of:)) }
}
