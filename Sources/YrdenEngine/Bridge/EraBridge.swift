import Crypto
import FoundationEssentials
import YrdenProtocol
import YrdenTelemetry
import YrdenTransport

/// Where the two eras of MCP meet, kept out of routing and dispatch: the 2026-07-28 envelope of a stateless
/// request (checked, stripped before it goes up, its result stamped), a 2026-07-28 upstream's
/// `input_required` answered for a handshake-era client (``InputRequiredBridge``), and a 2026-07-28 client's
/// call to a handshake-era upstream that asks during the call, parked behind `input_required` until the
/// client's retry (``ParkedCalls``, its token sealed by ``RequestStateSeal``).
final class EraBridge: Sendable {
    /// Calls that wait for their client's retry, and the seal of the `requestState` that names them.
    let parked = ParkedCalls()
    let requestStates: RequestStateSeal
    /// The gateway's clock, for the asks a parked call gathers and the pause of an `input_required` retry.
    let time: any TimeSource
    /// How other replicas reach this one (sealed into each `requestState`); `nil` without replicas.
    let replica: String?
    /// Where a parked call's CLIENT span goes; `nil`: tracing is off.
    let tracer: Tracer?

    /// `requestStateKey`: the 32-byte key replicas share (from the store); `nil` makes one for this process.
    /// `replica`: this replica's base URL as the others reach it.
    init(time: any TimeSource, requestStateKey: [UInt8]? = nil, replica: String? = nil, tracer: Tracer? = nil) {
        self.time = time
        self.tracer = tracer
        self.replica = replica
        self.requestStates = requestStateKey.map { RequestStateSeal(key: SymmetricKey(data: $0)) } ?? RequestStateSeal()
    }

    /// Ends every parked call (the gateway's run is over).
    func cancelAll() {
        parked.cancelAll()
    }

    // MARK: Parking

    /// The methods that may answer `input_required`.
    static let parkableMethods: Set<String> = [MCPMethod.toolsCall, MCPMethod.promptsGet, MCPMethod.resourcesRead]

    /// The refusal of a `requestState` that is not a live token of this gateway for this very request (its
    /// method, name, arguments, caller and endpoint); nothing is changed by it.
    static let invalidRequestState = JSONRPCError(
        code: -32602,
        message: "Invalid or expired requestState",
        data: ["reason": "invalid_request_state"]
    )

    /// Forwards `request` (a 2026-07-28 client's, with `forwarded` as the upstream's params) to a
    /// handshake-era upstream so that what it asks during the call becomes `input_required`, or resumes the
    /// parked call a retry names.
    func forwardParking(
        _ request: JSONRPCRequest,
        to client: UpstreamClient,
        server: String,
        params forwarded: JSONObject,
        options: RequestOptions,
        lifetime: Duration,
        _ context: ForwardContext,
        recovery: RefusalRecovery? = nil
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        let binding = ParkBinding(request, context)
        let call: ParkedCall
        if let resumed = try resumedCall(request, binding), !resumed.reissues {
            call = resumed
            call.answer(request.params?["inputResponses"]?.objectValue ?? [:])
        } else {
            // A new call, or (after a URL elicitation the server required) the same call made again.
            call = startCall(
                request,
                to: client,
                server: server,
                params: forwarded,
                options: options,
                context,
                recovery: recovery
            )
        }
        let round = await withTaskCancellationHandler {
            await call.nextRound()
        } onCancel: {
            call.cancel("the client went away")
        }
        let parking: ParkedCall
        let asks: JSONObject
        switch round {
        case .final(let outcome):
            guard case .failure(let error) = outcome,
                let elicitations = Self.urlElicitations(required: error, capabilities: context.clientCapabilities)
            else { return outcome }
            // 2025-11-25's -32042: the server needs URL elicitations before it can run the call at all. The
            // client is asked for them; its retry makes the call again.
            parking = ParkedCall(
                capabilities: context.clientCapabilities,
                client: context.session.client,
                server: server,
                reissues: true,
                time: time,
                trace: context.trace
            )
            asks = elicitations
        case .asks(let pending):
            (parking, asks) = (call, pending)
        }
        return .success(try park(parking, asking: asks, binding, lifetime: lifetime))
    }

    /// Where the retry `request` belongs when another replica holds the call its `requestState` names: that
    /// replica's base URL. `nil` for anything this replica answers itself (a first call, its own token, a
    /// token that does not open, which it refuses).
    func holder(of request: JSONRPCRequest) -> String? {
        guard let token = request.params?["requestState"]?.stringValue, let claims = requestStates.open(token),
            let holder = claims.replica, holder != replica
        else { return nil }
        return holder
    }

    /// The span of the parked call a retry's `requestState` names, for the retry's SERVER span to join its
    /// trace; `nil` for a first call, a token that does not open, or a call parked elsewhere or untraced.
    func parkedTrace(of request: JSONRPCRequest) -> SpanContext? {
        guard let token = request.params?["requestState"]?.stringValue, let claims = requestStates.open(token) else {
            return nil
        }
        return parked.peek(claims.park)?.trace
    }

    /// The parked call a retry's `requestState` names, taken out of ``parked``; `nil` for a first call. A token
    /// that does not open, or was minted for another request, is refused.
    private func resumedCall(_ request: JSONRPCRequest, _ binding: ParkBinding) throws(JSONRPCError) -> ParkedCall? {
        guard let state = request.params?["requestState"] else { return nil }
        guard let token = state.stringValue, let claims = requestStates.open(token), binding.matches(claims),
            claims.expires > Int(Date().timeIntervalSince1970),
            let parked = parked.take(claims.park)
        else { throw Self.invalidRequestState }
        return parked
    }

    /// Starts the upstream call in a task of its own, its asks collected by a ``ParkingRelay``.
    private func startCall(
        _ request: JSONRPCRequest,
        to client: UpstreamClient,
        server: String,
        params forwarded: JSONObject,
        options: RequestOptions,
        _ context: ForwardContext,
        recovery: RefusalRecovery?
    ) -> ParkedCall {
        let call = ParkedCall(
            capabilities: context.clientCapabilities,
            client: context.session.client,
            server: server,
            time: time,
            trace: context.trace
        )
        var options = options
        options.handle = call.handle
        options.relay = ParkingRelay(call: call)
        // The call's params never carry the retry's fields: a handshake-era server knows none of them.
        var params = forwarded
        params["inputResponses"] = nil
        // The one upstream request of the call, whichever round's retry its answer reaches: one CLIENT span.
        var span: TraceSpan?
        if let tracer, let parent = context.trace {
            let started = RequestSpans.upstream(
                tracer,
                parent: parent,
                method: request.method,
                params: params,
                server: server,
                link: context.snapshot.links[server]
            )
            TraceMeta.stamp(&params, &options, with: started.context)
            span = started
        }
        let spec = context.snapshot.links[server]?.spec
        let tracer = self.tracer
        call.start { [params, options, span] in
            var options = options
            var recovering = recovery
            var span = span
            while true {
                do throws(UpstreamError) {
                    let answer = try await client.request(request.method, params: .object(params), options: options)
                    if let tracer, let span { RequestSpans.end(span, tracer, answer: answer) }
                    return answer
                } catch {
                    if let tracer, let ended = span {
                        RequestSpans.end(ended, tracer, failure: error.kind)
                        span = nil  // a second attempt after a refresh is not traced again
                    }
                    // A user's refused token: refreshed once and the call sent again, or the sign-in answer.
                    if let recover = recovering, let recovered = await recover(error) {
                        recovering = nil
                        switch recovered {
                        case .retry(let authorization):
                            options.headers.removeAll { $0.name.lowercased() == "authorization" }
                            options.headers.append((name: "Authorization", value: authorization))
                            continue
                        case .answer(let answer):
                            return answer
                        }
                    }
                    let reason = spec.map { ServerSecrets($0).scrub(error.message) } ?? error.message
                    return .failure(.upstreamUnavailable("MCP server '\(server)' failed: \(reason)", server: server))
                }
            }
        }
        return call
    }

    /// Parks `call` until the client's retry and answers `input_required` with its asks and a sealed token.
    private func park(
        _ call: ParkedCall,
        asking asks: JSONObject,
        _ binding: ParkBinding,
        lifetime: Duration
    ) throws(JSONRPCError) -> JSONValue {
        let id: String
        switch parked.park(call, for: lifetime) {
        case .success(let parkedID): id = parkedID
        case .failure(let refusal):
            call.cancel("too many calls wait for their clients")
            throw refusal
        }
        let expires = Int(Date().timeIntervalSince1970) + Int(lifetime.components.seconds)
        return [
            "resultType": "input_required", "inputRequests": .object(asks),
            "requestState": .string(requestStates.seal(binding.claims(park: id, expires: expires, replica: replica))),
        ]
    }

    /// The URL elicitations a handshake-era server's -32042 requires, as 2026-07-28 input requests (no
    /// `elicitationId`); `nil` for any other error, or for a client that did not declare URL elicitation.
    static func urlElicitations(required error: JSONRPCError, capabilities: JSONObject) -> JSONObject? {
        guard error.code == -32042, capabilities["elicitation"]?["url"] != nil,
            let elicitations = error.data?["elicitations"]?.arrayValue, !elicitations.isEmpty
        else { return nil }
        var asks = JSONObject()
        for (index, elicitation) in elicitations.enumerated() {
            guard let url = elicitation["url"]?.stringValue else { return nil }
            var params: JSONObject = ["mode": "url", "url": .string(url)]
            params["message"] = elicitation["message"] ?? .string("")
            asks["url-\(index + 1)"] = ["method": .string(MCPMethod.elicitationCreate), "params": .object(params)]
        }
        return asks
    }

    // MARK: A 2026-07-28 upstream's input_required, for a handshake-era client

    /// `answer` when it is final; otherwise the client is asked what the upstream asked, through `relay`, and
    /// the call retried with the answers (``InputRequiredBridge``).
    func resolve(
        _ answer: Result<JSONValue, JSONRPCError>,
        from client: UpstreamClient,
        server: String,
        relay: SessionRelay,
        method: String,
        params: JSONObject,
        options: RequestOptions
    ) async throws(UpstreamError) -> Result<JSONValue, JSONRPCError> {
        try await InputRequiredBridge(client: client, relay: relay, time: time, server: server)
            .resolve(answer, method: method, params: params, options: options)
    }

    // MARK: The 2026-07-28 envelope of a stateless request

    /// The methods a stateless client may call; the rest (ping, logging/setLevel, resources/subscribe, …)
    /// do not exist in 2026-07-28 and get -32601.
    static let statelessMethods: Set<String> = [
        MCPMethod.serverDiscover, MCPMethod.toolsList, MCPMethod.toolsCall, MCPMethod.promptsList,
        MCPMethod.promptsGet, MCPMethod.resourcesList, MCPMethod.resourceTemplatesList, MCPMethod.resourcesRead,
        MCPMethod.completionComplete,
    ]

    /// Results a client may cache for `ttlMs` (see ``CatalogViews/cacheHint(for:_:scope:)`` for what the gateway
    /// promises).
    static let cacheableMethods: Set<String> = [
        MCPMethod.serverDiscover, MCPMethod.toolsList, MCPMethod.promptsList, MCPMethod.resourcesList,
        MCPMethod.resourceTemplatesList, MCPMethod.resourcesRead,
    ]

    /// Reads a stateless request's envelope (-32602, -32022, -32601 refused at once) and admits the request in
    /// `connection`, or in a session that lives as long as the request when `nil`; see
    /// ``Gateway/admitStateless(_:in:principal:client:caller:scope:)``.
    static func admit(
        _ request: JSONRPCRequest,
        in connection: DownstreamSession?,
        principal: String?,
        client: ClientKey?,
        caller: Caller,
        scope: CatalogScope
    ) -> StatelessAdmission {
        let envelope: ModernEnvelope
        do {
            envelope = try ModernEnvelope(request, served: ProtocolVersion.served)
        } catch {
            return .answer(JSONRPCResponse(id: request.id, error: error))
        }
        guard statelessMethods.contains(request.method) else {
            return .answer(JSONRPCResponse(id: request.id, error: .methodNotFound(request.method)))
        }
        guard request.method != MCPMethod.serverDiscover else { return .discover(request, scope) }
        // Without a transport's own, a session that lives as long as the request: it carries the request's
        // in-flight registration and its identity, and is never stored.
        let session =
            connection
            ?? DownstreamSession(
                id: "",
                protocolVersion: envelope.protocolVersion,
                clientInfo: envelope.clientInfo ?? .null,
                scope: scope,
                client: client,
                caller: caller
            )
        // The envelope belongs to this hop; handshake-era upstreams refuse a request that carries it.
        let upstreamRequest = JSONRPCRequest(
            id: request.id,
            method: request.method,
            params: ModernEnvelope.stripped(request.params)
        )
        session.touch()
        return .call(
            AdmittedRequest(
                upstreamRequest,
                in: session,
                clientCapabilities: envelope.clientCapabilities,
                principal: principal,
                caller: caller,
                logLevel: envelope.logLevel
            )
        )
    }

    /// A stateless request's outcome as 2026-07-28 has it: see ``stamped(_:method:hint:)`` and
    /// ``modernError(_:)``.
    static func marked(
        _ outcome: Result<JSONValue, JSONRPCError>,
        method: String,
        hint: CacheHint
    )
        -> Result<JSONValue, JSONRPCError>
    {
        outcome.map { stamped($0, method: method, hint: hint) }.mapError(modernError)
    }

    /// A result as 2026-07-28 has it: `resultType`, cache hints where the method is cacheable (the merged
    /// lists' `hint`; a read keeps the hint its server gave, or promises nothing), and the gateway's identity
    /// in `_meta`.
    static func stamped(_ result: JSONValue, method: String, hint: CacheHint = .none) -> JSONValue {
        guard var object = result.objectValue else { return result }
        if object["resultType"] == nil { object["resultType"] = "complete" }
        if cacheableMethods.contains(method) {
            let ownHint = method == MCPMethod.resourcesRead ? CacheHint(result: object) ?? .none : hint
            ownHint.stamp(&object)
        }
        var meta = object["_meta"]?.objectValue ?? [:]
        meta[ModernEnvelope.serverInfoKey] = Gateway.serverInfo
        object["_meta"] = .object(meta)
        return .object(object)
    }

    /// 2026-07-28 retired -32002: a missing resource is -32602, still naming the URI.
    static func modernError(_ error: JSONRPCError) -> JSONRPCError {
        guard error.code == -32002 else { return error }
        return JSONRPCError(code: -32602, message: error.message, data: error.data)
    }
}
