import Logging
import YrdenConfig
import YrdenTransport

extension UpstreamConnection {
    /// Opens the transport the spec names and completes the MCP handshake over it. A client that fails the
    /// handshake is closed before the error is returned.
    ///
    /// A bare `url` (`fallbackToSSE`) is tried as Streamable HTTP first; a server that refuses that POST with
    /// 400, 404 or 405 is tried again over legacy HTTP+SSE on the same URL, as the spec's backwards
    /// compatibility section describes. Never on 401/403: a token to fix is not an old server.
    func connect(
        authorizer: (any UpstreamAuthorizer)?
    ) async throws(UpstreamError) -> (
        UpstreamClient, UpstreamHandshake
    ) {
        guard case .http(let url, let headers, let auth, fallbackToSSE: true) = spec.transport else {
            return try await handshake(try openClient(authorizer: authorizer))
        }
        do {
            let connected = try await handshake(try openClient(authorizer: authorizer))
            if owners.registry.snapshot.links[spec.id]?.fellBackToSSE == true {
                await publishLink { $0.fellBackToSSE = false }
            }
            return connected
        } catch  where Self.fallbackStatuses.contains(error.httpStatus ?? 0) {
            let status = error.httpStatus ?? 0
            noteTransport("the server refused Streamable HTTP (HTTP \(status)); trying the legacy HTTP+SSE transport")
            do {
                let connected = try await handshake(try openLegacySSE(url: url, headers: headers, auth: auth))
                noteTransport("the server speaks the legacy HTTP+SSE transport; connected over it")
                await publishLink { $0.fellBackToSSE = true }
                return connected
            } catch {
                throw UpstreamError(
                    error.kind,
                    "the server refused Streamable HTTP (HTTP \(status)) and legacy HTTP+SSE: \(error.message)",
                    httpStatus: error.httpStatus
                )
            }
        }
    }

    /// The answers to a Streamable HTTP `initialize` that mean "try the legacy transport" (spec 2025-11-25).
    private static let fallbackStatuses: Set<Int> = [400, 404, 405]

    /// Agrees on an era with the server over `client` (see ``agree(with:)``), closing the client when that
    /// fails. The client's own deadline timer fails a probe or an `initialize` that is never answered.
    private func handshake(_ client: UpstreamClient) async throws(UpstreamError) -> (UpstreamClient, UpstreamHandshake)
    {
        do {
            return (client, try await agree(with: client))
        } catch {
            await shielded { await client.close() }
            throw error
        }
    }

    private func openClient(authorizer: (any UpstreamAuthorizer)?) throws(UpstreamError) -> UpstreamClient {
        switch spec.transport {
        case .stdio(let command, let args, let env, let cwd):
            let stdio = StdioCommand(
                command: command,
                arguments: args,
                environment: env,
                workingDirectory: cwd,
                withheldEnvironment: owners.connector.withheldEnvironment.names
            )
            return try open(.stdio(stdio), log: "stderr")
        case .http(let url, let headers, _, _):
            let endpoint = StreamableHTTPEndpoint(
                url: url,
                headers: headers,
                requestTimeout: spec.timeouts.request,
                toolCallTimeout: spec.timeouts.toolCall,
                authorizer: authorizer
            )
            return try open(.streamableHTTP(endpoint), log: "http")
        case .sse(let url, let headers, let auth):
            return try openLegacySSE(url: url, headers: headers, auth: auth)
        case .websocket(let url, let headers, let auth):
            if auth.isPerCaller {
                // One connection carries every caller's messages, with the headers of its upgrade only.
                throw UpstreamError(.auth, "callers' credentials over a WebSocket connection are not supported")
            }
            let endpoint = WebSocketEndpoint(
                url: url,
                headers: headers,
                connectTimeout: spec.timeouts.connect,
                pingInterval: min(.seconds(15), spec.timeouts.connect),
                pongTimeout: spec.timeouts.connect,
                authorizer: authorizer
            )
            return try open(.webSocket(endpoint), log: "websocket")
        }
    }

    private func openLegacySSE(
        url: String,
        headers: [String: String],
        auth: AuthSpec
    ) throws(UpstreamError)
        -> UpstreamClient
    {
        if case .oauth = auth {
            throw UpstreamError(.auth, "OAuth over the legacy HTTP+SSE transport is not supported by this build yet")
        }
        if auth.isPerCaller {
            // Its POSTs carry no per-request headers, so the caller's credential could not go with a call.
            throw UpstreamError(.auth, "callers' credentials over the legacy HTTP+SSE transport are not supported")
        }
        let endpoint = LegacySSEEndpoint(
            url: url,
            headers: headers,
            requestTimeout: spec.timeouts.request,
            endpointTimeout: spec.timeouts.connect
        )
        return try open(.legacySSE(endpoint), log: "sse")
    }

    /// Opens `route` through the gateway's channel factory, the channel's diagnostics going to `log`'s stream;
    /// the client times its deadlines on the gateway's time source and counts the notifications it sheds.
    func open(_ route: ChannelRoute, log stream: String) throws(UpstreamError) -> UpstreamClient {
        let channels = owners.connector.channels
        let spec = self.spec
        let server = spec.id
        return try UpstreamClient(
            open: { handler throws(UpstreamError) in try channels.open(route, for: spec, handler: handler) },
            log: channelLog(stream: stream),
            diagnostics: UpstreamDiagnostics(
                note: gatewayNote(),
                droppedLog: { GatewayMetrics.recordUnattributedLog(server: server) }
            ),
            time: owners.connector.time,
            onShed: { coalesced, dropped in
                GatewayMetrics.recordShedNotifications(server: server, coalesced: coalesced, dropped: dropped)
            }
        )
    }

    /// A transport decision, logged at info and kept in the server's ring: the admin API and health output
    /// name the configured transport (`http`), so this is where the one actually used shows.
    private func noteTransport(_ message: String) {
        logger.info("\(message)")
        owners.registry.logRing(spec.id)?.append(message, level: .info, event: "transport")
    }

    /// Where the gateway's own remarks about the server go (a request of the server it refused, a message it
    /// ignored): logged as the gateway's, naming the server, and kept in the server's ring as the gateway's
    /// (`gateway`), never in its `stderr` stream as if the server had written them.
    private func gatewayNote() -> @Sendable (String) -> Void {
        let ring = owners.registry.logRing(spec.id)
        let logger = self.logger
        let secrets = ServerSecrets(spec)
        return { remark in
            let line = secrets.scrub(remark)
            ring?.append(line, level: .notice, event: "gateway")
            logger.notice("\(line)")
        }
    }

    /// Where a channel's diagnostics go: the server's log ring (the admin API's view) and debug logging.
    private func channelLog(stream: String) -> @Sendable (String) -> Void {
        let ring = owners.registry.logRing(spec.id)
        let logger = self.logger
        let secrets = ServerSecrets(spec)
        return { written in
            let line = secrets.scrub(written)
            ring?.append(line, event: stream)
            logger.debug("\(line)", metadata: ["yrden.stream": "\(stream)"])
        }
    }
}
