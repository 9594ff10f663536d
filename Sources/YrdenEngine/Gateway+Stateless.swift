import YrdenProtocol

/// The 2026-07-28 era downstream: requests that carry their own version, capabilities and identity, with no
/// session. Served beside the handshake era on the same endpoint; what the upstreams speak does not matter
/// here, since every upstream call goes through the same routing.
extension Gateway {
    /// Answers one stateless request: the envelope checked (-32602, -32022), the request served like a
    /// session's, and the result marked as 2026-07-28 asks (`resultType`, cache hints, `serverInfo`).
    /// Progress goes to `related`, the request's own stream; cancelling the calling task cancels the call
    /// upstream. Never throws, never hangs past the server's timeout.
    package func respondStateless(
        to request: JSONRPCRequest,
        principal: String? = nil,
        client: ClientKey? = nil,
        caller: Caller = .anonymous,
        scope: CatalogScope = .gateway,
        related: RelatedMessageSink?
    ) async -> JSONRPCResponse {
        let admission = admitStateless(
            request,
            in: nil,
            principal: principal,
            client: client,
            caller: caller,
            scope: scope
        )
        return await respondStateless(to: admission, related: related)
            ?? JSONRPCResponse(id: request.id, error: Self.requestCancelled)
    }

    /// Checks a stateless request and registers it as in flight in `connection` (a transport's own, see
    /// ``statelessConnection()``; `nil`: one of its own), before it is answered, so that a
    /// `notifications/cancelled` read right after it finds it (see ``AdmittedRequest``).
    /// `principal` is the credential the request came with, which a `requestState` minted for it is bound to;
    /// `client` who sent it, for the per-client bound on parked calls; `caller` whom it acts for.
    package func admitStateless(
        _ request: JSONRPCRequest,
        in connection: DownstreamSession?,
        principal: String? = nil,
        client: ClientKey? = nil,
        caller: Caller = .anonymous,
        scope: CatalogScope = .gateway
    ) -> StatelessAdmission {
        EraBridge.admit(request, in: connection, principal: principal, client: client, caller: caller, scope: scope)
    }

    /// Answers an admitted stateless request; `nil` when the client cancelled it.
    package func respondStateless(
        to admission: StatelessAdmission,
        related: RelatedMessageSink?
    ) async -> JSONRPCResponse? {
        let request: JSONRPCRequest
        let scope: CatalogScope
        switch admission {
        case .answer(let refusal): return refusal
        case .discover(let discover, let discoverScope): (request, scope) = (discover, discoverScope)
        case .call(let admitted): (request, scope) = (admitted.request, admitted.session.scope)
        }
        // No initialize came first to wait for the servers' first attempts: any request may be a client's
        // first, started together with the gateway.
        await registry.awaitStartup()
        let outcome: Result<JSONValue, JSONRPCError>
        if case .call(let admitted) = admission {
            guard let response = await respond(to: admitted, related: related) else { return nil }
            outcome = response.outcome
        } else {
            outcome = .success(views.discoverResult(snapshot, scope: scope))
        }
        let hint = views.cacheHint(for: request.method, snapshot, scope: scope)
        return JSONRPCResponse(id: request.id, outcome: EraBridge.marked(outcome, method: request.method, hint: hint))
    }

    /// -32020 when a client's `tools/call` comes with `Mcp-Param-*` headers that do not match its arguments;
    /// see ``Dispatcher/paramHeaderMismatch(_:scope:header:)``.
    package func paramHeaderMismatch(
        _ call: JSONRPCRequest,
        scope: CatalogScope = .gateway,
        header: (String) -> [String]
    ) -> JSONRPCError? {
        dispatcher.paramHeaderMismatch(call, scope: scope, header: header)
    }

    /// The resources a listen stream asks to follow, as far as they can be: the URIs followed.
    package func follow(_ uris: [String], for session: DownstreamSession) async -> [String] {
        await dispatcher.follow(uris, for: session)
    }

    /// Where a transport that carries many stateless requests (a stdio pipe) registers them, so its client's
    /// `notifications/cancelled` finds them. Not stored and never announced to: it holds calls in flight only,
    /// no version, capabilities or identity of any one request.
    package func statelessConnection(scope: CatalogScope = .gateway) -> DownstreamSession {
        DownstreamSession(id: "", protocolVersion: ProtocolVersion.modern, clientInfo: .null, scope: scope)
    }

    /// Opens the session behind a `subscriptions/listen` stream: stored like any session, so every change the
    /// gateway announces reaches it, and bounded by `gateway.maxSessions` and `gateway.maxSessionsPerClient`
    /// like them. The transport ends it when the stream closes.
    package func openSubscription(
        _ request: JSONRPCRequest,
        scope: CatalogScope = .gateway,
        client: ClientKey? = nil,
        caller: Caller = .anonymous
    ) throws(JSONRPCError) -> DownstreamSession {
        let envelope = try ModernEnvelope(request, served: ProtocolVersion.served)
        do {
            return try sessions.create(
                protocolVersion: envelope.protocolVersion,
                clientInfo: envelope.clientInfo,
                scope: scope,
                client: client,
                caller: caller
            )
        } catch {
            throw error.rpcError
        }
    }

}

/// A stateless request as read: refused at once, `server/discover`, or a call registered in flight.
package enum StatelessAdmission: Sendable {
    case answer(JSONRPCResponse)
    case discover(JSONRPCRequest, CatalogScope)
    case call(AdmittedRequest)
}

extension Gateway {
    /// The base URL of the replica holding the call a retry's `requestState` names, when that is another
    /// replica: the front hands the retry there. `nil` when this replica answers it.
    package func replicaHolding(_ call: JSONRPCRequest) -> String? {
        bridge.holder(of: call)
    }
}
