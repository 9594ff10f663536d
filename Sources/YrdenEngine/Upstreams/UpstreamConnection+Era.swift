import Logging
import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// Which MCP era the gateway speaks to a server, found out per connection as 2026-07-28's backwards
/// compatibility asks of a dual-era client.
extension UpstreamConnection {
    /// The envelope the gateway stamps on every request to a 2026-07-28 server.
    static var modernStamp: ModernStamp {
        ModernStamp(capabilities: Gateway.modernUpstreamCapabilities, clientInfo: Gateway.clientInfo)
    }

    /// Agrees on an era over `client`, which then speaks it:
    /// - pinned `2025-11-25` (and the legacy HTTP+SSE transport, which has no other): `initialize` only;
    /// - pinned `2026-07-28`: `server/discover` only, and a server that does not answer it is an error;
    /// - `auto`: the probe, then `initialize` on any error or silence; a server found to be of the handshake
    ///   era (by a probe or a handshake, on any attempt before, connected or not) skips the probe: a silent
    ///   one would cost its timeout at every reconnect, and an SDK 1.x one writes a long validation error
    ///   for each. One that refuses `initialize` as a 2026-07-28 server is probed after all (it may have
    ///   locked itself into that era when an earlier probe reached it late).
    func agree(with client: UpstreamClient) async throws(UpstreamError) -> UpstreamHandshake {
        if case .sse = spec.transport { return try await initialize(client) }
        switch spec.protocolEra {
        case .handshake:
            return try await initialize(client)
        case .modern:
            switch try await discover(client, timeout: spec.timeouts.connect) {
            case .modern(let handshake):
                client.adopt(Self.modernStamp)
                return handshake
            case .handshakeEra(let reason):
                throw UpstreamError(
                    .protocol,
                    "\"protocol\" pins MCP 2026-07-28, which the server does not speak: \(reason)"
                )
            }
        case .auto:
            if !knownToBeOfTheHandshakeEra, let modern = try await probe(client) { return modern }
            switch try await initializeExchange(client) {
            case .connected(let handshake):
                await remember(.handshake)
                return handshake
            case .modernOnly(let refusal):
                if let modern = try await probe(client) { return modern }
                throw UpstreamError(
                    .protocol,
                    "the server refused initialize as a 2026-07-28 server, then refused server/discover: \(refusal.message)"
                )
            }
        }
    }

    /// The `server/discover` probe: the server's handshake when it speaks 2026-07-28 (the client then stamps
    /// its envelope), `nil` when it does not.
    private func probe(_ client: UpstreamClient) async throws(UpstreamError) -> UpstreamHandshake? {
        switch try await discover(client, timeout: spec.timeouts.discover) {
        case .modern(let handshake):
            client.adopt(Self.modernStamp)
            await remember(.modern)
            return handshake
        case .handshakeEra(let reason):
            logger.debug("the server is of the handshake era", metadata: ["reason": "\(reason)"])
            await remember(.handshake)
            return nil
        }
    }

    /// Keeps the era found for the server's life in the gateway (its link), from this attempt on.
    private func remember(_ era: UpstreamEra) async {
        guard owners.registry.snapshot.links[spec.id]?.knownEra != era else { return }
        await publishLink { $0.knownEra = era }
    }

    /// `initialize`, with a server that answers as a 2026-07-28 one told apart from other refusals.
    private func initialize(_ client: UpstreamClient) async throws(UpstreamError) -> UpstreamHandshake {
        switch try await initializeExchange(client) {
        case .connected(let handshake):
            return handshake
        case .modernOnly:
            throw UpstreamError(
                .protocol,
                "the server speaks only MCP 2026-07-28 and refused initialize; set \"protocol\" to \"auto\" or \"2026-07-28\""
            )
        }
    }

    /// The `initialize` exchange with the gateway's identity and capabilities; a span when tracing is on.
    private func initializeExchange(_ client: UpstreamClient) async throws(UpstreamError) -> HandshakeOutcome {
        let exchange = { () async throws(UpstreamError) -> HandshakeOutcome in
            try await client.handshake(
                clientInfo: Gateway.clientInfo,
                capabilities: Gateway.upstreamClientCapabilities,
                timeout: self.spec.timeouts.connect
            )
        }
        guard let spans = ownRequestSpans() else { return try await exchange() }
        return try await spans.traced(MCPMethod.initialize, exchange)
    }

    /// `server/discover` within `timeout`; a span when tracing is on.
    private func discover(_ client: UpstreamClient, timeout: Duration) async throws(UpstreamError) -> DiscoverVerdict {
        let exchange = { () async throws(UpstreamError) -> DiscoverVerdict in
            try await client.discover(Self.modernStamp, timeout: timeout)
        }
        guard let spans = ownRequestSpans() else { return try await exchange() }
        return try await spans.traced(MCPMethod.serverDiscover, exchange)
    }

    /// The spans of the gateway's own requests to the server (`nil` with tracing off), naming the era agreed;
    /// children of the operator's change that started the attempt, if one did.
    func ownRequestSpans(protocolVersion: String? = nil) -> OwnRequestSpans? {
        let transport = owners.registry.snapshot.links[spec.id]?.transportName ?? spec.transport.kindName
        return OwnRequestSpans(
            owners.dispatcher.tracer,
            server: spec.id,
            transport: transport,
            protocolVersion: protocolVersion,
            parent: OwnRequestSpans.cause
        )
    }

    /// Whether the server was found to be of the handshake era: the era is kept per server (``ServerLink/knownEra``,
    /// or the last connection's handshake).
    private var knownToBeOfTheHandshakeEra: Bool {
        guard let link = owners.registry.snapshot.links[spec.id] else { return false }
        if let era = link.knownEra { return era == .handshake }
        guard let version = link.lastHandshake?.protocolVersion else { return false }
        return ProtocolVersion.isSupported(version)
    }
}
