import YrdenConfig
import YrdenProtocol
import YrdenTelemetry
import YrdenTransport

/// What forwarding one client request needs besides the request itself: the state it was routed by, the
/// session it belongs to, the handle the client's cancellation reaches, and where its progress goes.
struct ForwardContext: Sendable {
    let snapshot: ServerRegistry.Snapshot
    let session: DownstreamSession
    /// What the client can do while the request runs (see ``AdmittedRequest/clientCapabilities``).
    let clientCapabilities: JSONObject
    /// The caller's credential, for binding what it is given to it (see ``AdmittedRequest/principal``).
    let principal: String?
    /// Whom the call acts for (see ``AdmittedRequest/caller``).
    let caller: Caller
    /// The least severe log message the client wants from this request; `nil`: none.
    let logLevel: LoggingLevel?
    let call: CallHandle
    let related: RelatedMessageSink?
    /// The span the request's next span is a child of (its SERVER span, or the routing span); `nil` when
    /// tracing is off.
    var trace: SpanContext?

    /// The same context for a request whose progress is not relayed.
    var withoutRelated: ForwardContext {
        ForwardContext(
            snapshot: snapshot,
            session: session,
            clientCapabilities: clientCapabilities,
            principal: principal,
            caller: caller,
            logLevel: logLevel,
            call: call,
            related: nil,
            trace: trace
        )
    }
}

extension Dispatcher {
    /// Forwards a named item's request (a tool or prompt) under the name its server knows it by.
    func forward(
        _ request: JSONRPCRequest,
        renamedTo route: Route,
        _ context: ForwardContext,
        isToolCall: Bool = false
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        guard let tracer, let parent = context.trace else {
            return try await forwardRouted(request, renamedTo: route, context, isToolCall: isToolCall)
        }
        // Traced: the routing decision is a span, parent of what goes upstream.
        let routing = RequestSpans.route(tracer, parent: parent, route)
        defer { tracer.end(routing) }
        var traced = context
        traced.trace = routing.context
        return try await forwardRouted(request, renamedTo: route, traced, isToolCall: isToolCall)
    }

    private func forwardRouted(
        _ request: JSONRPCRequest,
        renamedTo route: Route,
        _ context: ForwardContext,
        isToolCall: Bool
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        var params = request.params?.objectValue ?? [:]
        params["name"] = .string(route.name)
        var headers: [(name: String, value: String)] = []
        if isToolCall, context.snapshot.links[route.server]?.client?.takesParamHeaders == true {
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

    /// Sends the request to `server` under a fresh upstream id and maps the answer back. Progress for it is
    /// relayed to the context's sink with the client's own token; the client's cancellation reaches the
    /// upstream through the context's call handle. Reached through ``forward(_:to:params:_:isToolCall:headers:)``,
    /// which checks the caller's limits and audits the call.
    func send(
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
            throw .upstreamUnavailable(CatalogViews.notConnectedMessage(server, state), server: server)
        }
        let (forwarded, clientToken) = Self.takingProgressToken(params)
        let timeout = isToolCall ? timeouts.toolCall : timeouts.request
        let crossing = EraCrossing(
            method: request.method,
            session: context.session,
            clientCapabilities: context.clientCapabilities,
            hasStream: context.related != nil,
            upstream: client
        )
        let relay = Self.relay(context, crossing, timeout: timeouts.toolCall)
        var options = Self.requestOptions(
            timeout: timeout,
            progressToken: clientToken,
            relay: relay,
            crossing: crossing,
            server: server,
            context
        )
        options.headers = headers
        let credential = try await callerCredential(to: server, method: request.method, context)
        if let value = credential.authorization { options.headers.append((name: "Authorization", value: value)) }
        if case .signIn(let pending) = credential {
            return await signInAnswer(pending, server: server, method: request.method, relay: relay, context)
        }
        var refusable: RefusableUserCall?
        var upstream = client
        var lease: UserSessions.Lease?
        if case .userAuthorization(let used) = credential {
            let refused = RefusableUserCall(used: used, relay: relay)
            refusable = refused
            switch try await userSession(with: server, over: client, refused: refused, request.method, context) {
            case .session(let opened, let renewed):
                lease = opened
                upstream = opened?.client ?? client
                if let renewed {
                    options.headers.removeAll { $0.name.lowercased() == "authorization" }
                    options.headers.append((name: "Authorization", value: renewed))
                    refusable = RefusableUserCall(used: renewed, relay: relay)
                }
            case .answered(let answer):
                return answer
            }
        }
        defer { lease?.release() }
        if crossing.parks {
            // The bridge makes the call's one upstream request, and its CLIENT span with it.
            return try await bridge.forwardParking(
                request,
                to: upstream,
                server: server,
                params: forwarded,
                options: options,
                lifetime: timeout,
                context,
                recovery: refusable.map { recovery(afterRefused: $0, server: server, method: request.method, context) }
            )
        }
        return try await call(
            request,
            on: upstream,
            server: server,
            params: forwarded,
            options: options,
            inputRelay: crossing.resolvesInputRequired ? relay : nil,
            context,
            refusable: refusable
        )
    }

    /// What a user's call goes over: their own session with `server` (``UserSessions``) when its connection
    /// `client` is of the handshake era, `nil` when the call goes over the connection itself. A session the
    /// server refuses to open with the user's token (401) gets the call's second chance: one refresh and one
    /// more try, or the call is answered as for a user not signed in.
    private func userSession(
        with server: String,
        over client: UpstreamClient,
        refused call: RefusableUserCall,
        _ method: String,
        _ context: ForwardContext
    ) async throws(JSONRPCError) -> UserSessionOutcome {
        guard let users = userSessions.table(for: server, over: client) else { return .session(nil, renewed: nil) }
        var renewed: String?
        var refreshed = false
        while true {
            let failure: UpstreamError
            do {
                return .session(try await users.lease(context.caller.user), renewed: renewed)
            } catch {
                failure = error
            }
            let spec = context.snapshot.links[server]?.spec
            guard let spec, !refreshed, failure.kind == .auth, failure.httpStatus == 401 else {
                let reason = spec.map { ServerSecrets($0).scrub(failure.message) } ?? failure.message
                throw .upstreamUnavailable("MCP server '\(server)' failed: \(reason)", server: server)
            }
            refreshed = true
            switch try await userCredential(to: spec, method: method, context, refused: call.used) {
            case .userAuthorization(let value), .authorization(let value):
                renewed = value
            case .connection:
                break
            case .signIn(let pending):
                return .answered(
                    await signInAnswer(pending, server: server, method: method, relay: call.relay, context)
                )
            }
        }
    }

    /// What a user's call goes over (and the user's `Authorization`, when it was refreshed meanwhile), or its
    /// answer without going (the user must sign in first).
    private enum UserSessionOutcome {
        case session(UserSessions.Lease?, renewed: String?)
        case answered(Result<JSONValue, JSONRPCError>)
    }

    /// Where what the upstream asks during the call goes: this client, on the call's own stream. Every call has
    /// a relay, so that what cannot be relayed is refused for its true reason (a capability the client did
    /// not declare, a client of 2026-07-28); a call without a stream is of a client that declared nothing.
    private static func relay(_ context: ForwardContext, _ crossing: EraCrossing, timeout: Duration) -> SessionRelay {
        SessionRelay(
            session: context.session,
            capabilities: context.clientCapabilities,
            takesRequests: crossing.takesRequests,
            send: context.related,
            timeout: timeout
        )
    }

    /// The params as sent upstream, without the client's progress token (the call gets one of its own), and
    /// that token.
    private static func takingProgressToken(_ params: JSONValue?) -> (JSONObject, JSONValue?) {
        var forwarded = params?.objectValue ?? [:]
        var meta = forwarded["_meta"]?.objectValue ?? [:]
        let clientToken = meta.removeValue("progressToken")
        forwarded["_meta"] = meta.isEmpty ? nil : .object(meta)
        return (forwarded, clientToken)
    }

    /// A call's options: its deadlines, its cancellation handle and relay, and its progress and log messages
    /// relayed to the call's stream with the client's own token, at the level the client asked for.
    private static func requestOptions(
        timeout: Duration,
        progressToken clientToken: JSONValue?,
        relay: SessionRelay,
        crossing: EraCrossing,
        server: String,
        _ context: ForwardContext
    ) -> RequestOptions {
        var onProgress: (@Sendable (JSONValue) -> Void)?
        if let clientToken, let related = context.related {
            onProgress = { upstreamParams in
                var progress = upstreamParams.objectValue ?? [:]
                progress["progressToken"] = clientToken
                related(.notification(JSONRPCNotification(method: MCPMethod.progress, params: .object(progress))))
            }
        }
        var options = RequestOptions(
            timeout: timeout,
            maxTotalTimeout: timeout * 4,
            onProgress: onProgress,
            handle: context.call,
            relay: relay,
            clientCapabilities: crossing.upstreamCapabilities
        )
        if let level = context.logLevel, let related = context.related {
            // Log messages sent as part of this call, on its stream, at the level the client asked for.
            options.logLevel = level
            options.asksForLogs = crossing.asksForLogs
            options.onMessage = { params in
                guard let message = logMessage(params, from: server, atLeast: level) else { return }
                related(.notification(message))
            }
        }
        return options
    }

    /// Makes the call and records it; an upstream's `input_required` is resolved through `inputRelay` when the
    /// crossing says so (``EraCrossing/resolvesInputRequired``).
    /// A user's call is `refusable`: a 401 to its `Authorization` gets one refresh and one more try
    /// (``retry(afterRefused:_:on:server:params:options:inputRelay:_:)``).
    func call(
        _ request: JSONRPCRequest,
        on client: UpstreamClient,
        server: String,
        params forwarded: JSONObject,
        options: RequestOptions,
        inputRelay: SessionRelay?,
        _ context: ForwardContext,
        refusable: RefusableUserCall? = nil
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        // Traced: the CLIENT span's context goes up in `_meta` and, to an HTTP upstream, the headers. Untraced,
        // both stay the caller's own storage (copy-on-write: nothing is copied unless stamped).
        var params = forwarded
        var sentOptions = options
        var span: TraceSpan?
        if let tracer, let parent = context.trace {
            span = traced(&params, &sentOptions, tracer, parent: parent, request.method, server, context)
        }
        return try await call(
            request,
            on: client,
            server: server,
            params: params,
            options: sentOptions,
            inputRelay: inputRelay,
            context,
            refusable: refusable,
            span: span
        )
    }

    /// ``call(_:on:server:params:options:inputRelay:_:refusable:)`` with its CLIENT span (`nil`: untraced).
    private func call(
        _ request: JSONRPCRequest,
        on client: UpstreamClient,
        server: String,
        params forwarded: JSONObject,
        options: RequestOptions,
        inputRelay: SessionRelay?,
        _ context: ForwardContext,
        refusable: RefusableUserCall?,
        span: TraceSpan?
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        let started = ContinuousClock.now
        do {
            var answer = try await client.request(request.method, params: .object(forwarded), options: options)
            GatewayMetrics.recordRequest(server: server, method: request.method, duration: .now - started, failure: nil)
            if let relay = inputRelay {
                answer = try await bridge.resolve(
                    answer,
                    from: client,
                    server: server,
                    relay: relay,
                    method: request.method,
                    params: forwarded,
                    options: options
                )
            }
            if let tracer, let span { RequestSpans.end(span, tracer, answer: answer) }
            return answer
        } catch {
            if let tracer, let span { RequestSpans.end(span, tracer, failure: error.kind) }
            GatewayMetrics.recordRequest(
                server: server,
                method: request.method,
                duration: .now - started,
                failure: error.kind
            )
            if let refusable, error.kind == .auth, error.httpStatus == 401 {
                return try await retry(
                    afterRefused: refusable,
                    request,
                    on: client,
                    server: server,
                    params: forwarded,
                    options: options,
                    inputRelay: inputRelay,
                    context
                )
            }
            let spec = context.snapshot.links[server]?.spec
            let reason = spec.map { ServerSecrets($0).scrub(error.message) } ?? error.message
            throw .upstreamUnavailable("MCP server '\(server)' failed: \(reason)", server: server)
        }
    }
}
