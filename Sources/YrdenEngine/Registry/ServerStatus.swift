import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// One server as operators see it at one moment: its spec, its state, what it offers through the gateway,
/// and what its last connection and its last failure were.
package struct ServerStatus: Sendable, Hashable {
    package internal(set) var spec: ServerSpec
    package internal(set) var state: ConnectionState
    /// What the server offers on the aggregated endpoint (after its tool filter and name conflicts); zero while
    /// it is not connected.
    package internal(set) var counts: CatalogCounts
    /// Whether ``counts`` are the server's part of the aggregate (it is connected and its lists are in it),
    /// not the zeros of a server that offers nothing now: health reports counts only then.
    package internal(set) var inAggregate = false
    /// The current connection's handshake; `nil` while not connected.
    package internal(set) var handshake: UpstreamHandshake?
    /// The handshake of the last successful connection, kept across disconnects.
    package internal(set) var lastHandshake: UpstreamHandshake?
    /// The error that ended the last connection or attempt, and when; kept while the next attempt runs.
    package internal(set) var lastFailure: UpstreamFailure?
    /// Where an OAuth server's sign-in stands; `nil` for other servers.
    package internal(set) var auth: SignInStatus?
    /// The transport in use (``ServerLink/transportName``).
    package internal(set) var transportName: String

    package var id: String { spec.id }

    /// How the last connection was set up: `handshake` (an `initialize` exchange) for every protocol revision
    /// up to 2025-11-25, `modern` for 2026-07-28 (a `server/discover` probe, then an envelope on every
    /// request); `nil` before any connection, or for a revision this gateway does not know.
    package var era: String? {
        guard let version = lastHandshake?.protocolVersion else { return nil }
        if version == ProtocolVersion.modern { return "modern" }
        return version <= Self.lastHandshakeRevision ? "handshake" : nil
    }

    /// The last protocol revision whose sessions begin with an `initialize` handshake.
    static let lastHandshakeRevision = "2025-11-25"
}

/// How many tools, prompts and resources one server contributes.
package struct CatalogCounts: Sendable, Hashable {
    package internal(set) var tools = 0
    package internal(set) var prompts = 0
    package internal(set) var resources = 0
}

extension ServerRegistry.Snapshot {
    /// The status of server `id`, or `nil` when there is no such server.
    package func status(of id: String) -> ServerStatus? {
        guard let link = links[id] else { return nil }
        var counts = CatalogCounts()
        let aggregated = link.state.isConnected ? catalog.counts[id] : nil
        if let aggregated {
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
            inAggregate: aggregated != nil,
            handshake: link.handshake,
            lastHandshake: link.lastHandshake,
            lastFailure: link.lastFailure,
            auth: link.auth,
            transportName: link.transportName
        )
    }

    /// Every server's status, in config order.
    package var statuses: [ServerStatus] { order.compactMap(status(of:)) }
}
