import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// What forwarding one client request needs besides the request itself: the state it was routed by, the
/// session it belongs to, the handle the client's cancellation reaches, and where its progress goes.
struct ForwardContext: Sendable {
    let snapshot: Gateway.Snapshot
    let session: DownstreamSession
    /// What the client can do while the request runs (see ``AdmittedRequest/clientCapabilities``).
    let clientCapabilities: JSONObject
    /// The caller's credential, for binding what it is given to it (see ``AdmittedRequest/principal``).
    let principal: String?
    /// The least severe log message the client wants from this request; `nil`: none.
    let logLevel: LoggingLevel?
    let call: CallHandle
    let related: RelatedMessageSink?

    /// The same context for a request whose progress is not relayed.
    var withoutRelated: ForwardContext {
        ForwardContext(
            snapshot: snapshot,
            session: session,
            clientCapabilities: clientCapabilities,
            principal: principal,
            logLevel: logLevel,
            call: call,
            related: nil
        )
    }
}

extension Gateway {
    /// Forwards a named item's request (a tool or prompt) under the name its server knows it by.
    func forward(
        _ request: JSONRPCRequest,
        renamedTo route: Route,
        _ context: ForwardContext,
        isToolCall: Bool = false
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        var params = request.params?.objectValue ?? [:]
        params["name"] = .string(route.name)
        var headers: [(name: String, value: String)] = []
        if isToolCall, context.snapshot.links[route.server]?.client?.modernStamp != nil {
            headers = paramHeaders(of: route, arguments: params["arguments"], in: context.snapshot)
        }
        return try await forward(
            request,
            to: route.server,
            params: .object(params),
            context,
            isToolCall: isToolCall,
            headers: headers
        )
    }

    /// The stream of a 2026-07-28 client's relay, which never sends (it only refuses).
    static let sendsNothing: RelatedMessageSink = { _ in }

    /// Sends the request to `server` under a fresh upstream id and maps the answer back. Progress for it is
    /// relayed to the context's sink with the client's own token; the client's cancellation reaches the
    /// upstream through the context's call handle.
    func forward(
        _ request: JSONRPCRequest,
        to server: String,
        params: JSONValue?,
        _ context: ForwardContext,
        isToolCall: Bool = false,
        headers: [(name: String, value: String)] = []
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        // The few fields a call needs, not the whole link: copying it costs a retain of each of its parts.
        guard let state = context.snapshot.links[server]?.state,
            let timeouts = context.snapshot.links[server]?.spec.timeouts
        else { throw .internalError("no server \(server)") }
        guard let client = context.snapshot.links[server]?.client, state.isConnected else {
            throw .upstreamUnavailable(Self.notConnectedMessage(server, state), server: server)
        }
        var forwarded = params?.objectValue ?? [:]
        var meta = forwarded["_meta"]?.objectValue ?? [:]
        let clientToken = meta.removeValue("progressToken")
        forwarded["_meta"] = meta.isEmpty ? nil : .object(meta)
        var onProgress: (@Sendable (JSONValue) -> Void)?
        if let clientToken, let related = context.related {
            onProgress = { upstreamParams in
                var progress = upstreamParams.objectValue ?? [:]
                progress["progressToken"] = clientToken
                related(.notification(JSONRPCNotification(method: MCPMethod.progress, params: .object(progress))))
            }
        }
        let timeout = isToolCall ? timeouts.toolCall : timeouts.request
        // What the upstream asks during the call goes to this client, on the call's own stream. Every call has
        // a relay, so that what cannot be relayed is refused for its true reason (a capability the client did
        // not declare, a client of 2026-07-28); a call without a stream is of a client that declared nothing.
        let isModern = context.session.protocolVersion == ProtocolVersion.modern
        let relay = SessionRelay(
            session: context.session,
            capabilities: context.clientCapabilities,
            send: context.related ?? (isModern ? Self.sendsNothing : nil),
            timeout: timeouts.toolCall
        )
        var options = RequestOptions(
            timeout: timeout,
            maxTotalTimeout: timeout * 4,
            onProgress: onProgress,
            handle: context.call,
            relay: relay,
            clientCapabilities: client.modernStamp == nil
                ? nil
                : Self.upstreamCapabilities(
                    // A 2026-07-28 client is asked through the result; a handshake-era one only on a stream.
                    for: isModern || context.related != nil ? context.clientCapabilities : [:]
                )
        )
        options.headers = headers
        if let level = context.logLevel, let related = context.related {
            // Log messages sent as part of this call, on its stream, at the level the client asked for; a
            // 2026-07-28 client's level is its request's alone (a handshake-era session's reaches it as events).
            options.logLevel = level
            options.asksForLogs = isModern
            options.onMessage = { params in
                guard let message = Self.logMessage(params, from: server, atLeast: level) else { return }
                related(.notification(message))
            }
        }
        // A 2026-07-28 client that can be asked something, of a handshake-era upstream that may ask: the call
        // runs parked (a task of its own) so that it can outlive an `input_required` answer. A client that
        // declared nothing to be asked takes the direct path: whatever the upstream asks is refused alike.
        if isModern, client.modernStamp == nil, Self.parkableMethods.contains(request.method),
            SessionRelay.capabilities.contains(where: { context.clientCapabilities[$0] != nil })
        {
            return try await forwardParking(
                request,
                to: client,
                server: server,
                params: forwarded,
                options: options,
                lifetime: timeout,
                context
            )
        }
        let started = ContinuousClock.now
        do {
            var answer = try await client.request(request.method, params: .object(forwarded), options: options)
            GatewayMetrics.recordRequest(server: server, method: request.method, duration: .now - started, failure: nil)
            if !isModern {
                // A 2026-07-28 server asks for input in its result; a handshake-era client is asked for real.
                answer = try await InputRequiredBridge(
                    client: client,
                    relay: relay,
                    time: connector.time,
                    server: server
                )
                .resolve(answer, method: request.method, params: forwarded, options: options)
            }
            return answer
        } catch {
            GatewayMetrics.recordRequest(
                server: server,
                method: request.method,
                duration: .now - started,
                failure: error.kind
            )
            let spec = context.snapshot.links[server]?.spec
            let reason = spec.map { ServerSecrets($0).scrub(error.message) } ?? error.message
            throw .upstreamUnavailable("MCP server '\(server)' failed: \(reason)", server: server)
        }
    }
}
