import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// Receives the server-to-client messages that belong to one request (its progress), for the transport to
/// deliver on that request's own stream.
package typealias RelatedMessageSink = @Sendable (JSONRPCMessage) -> Void

extension Gateway {
    /// Answers one request of an initialized session, or returns `nil` when the client cancelled it: per
    /// MCP, the receiver of `notifications/cancelled` sends no response for that request. Never throws and
    /// never hangs past the server's timeout: every failure becomes the JSON-RPC error the client should see.
    package func respond(
        to request: JSONRPCRequest,
        session: DownstreamSession,
        related: RelatedMessageSink?
    ) async -> JSONRPCResponse? {
        await respond(to: admit(request, session: session), related: related)
    }

    /// Registers a request as in flight at once, before it is answered; see ``AdmittedRequest``.
    package func admit(_ request: JSONRPCRequest, session: DownstreamSession) -> AdmittedRequest {
        session.touch()
        return AdmittedRequest(request, in: session)
    }

    /// Answers an admitted request; `nil` when the client cancelled it.
    package func respond(to admitted: AdmittedRequest, related: RelatedMessageSink?) async -> JSONRPCResponse? {
        let request = admitted.request
        guard let call = admitted.call else {
            let error = JSONRPCError.invalidRequest("request id \(request.id) is already in flight in this session")
            return JSONRPCResponse(id: request.id, error: error)
        }
        let outcome: Result<JSONValue, JSONRPCError>
        var encoded: EncodedJSON?
        do {
            if let kind = ServerCatalog.Kind(listMethod: request.method) {
                let page = try await listPage(kind, cursor: request.params?["cursor"], scope: admitted.session.scope)
                (outcome, encoded) = (.success(page.value), page.encoded)
            } else {
                outcome = try await dispatch(admitted, call: call, related: related)
            }
        } catch {
            outcome = .failure(error)
        }
        guard !admitted.session.finish(request.id) else { return nil }  // the client cancelled it
        var response = JSONRPCResponse(id: request.id, outcome: outcome)
        response.encodedResult = encoded
        return response
    }

    /// One page of a merged list, with its serialization: made once per catalog generation and page, and
    /// shared by every client that lists (a profile's pages likewise, per profile). A client of one server
    /// alone gets that server's list, serialized with its answer.
    private func listPage(
        _ kind: ServerCatalog.Kind,
        cursor: JSONValue?,
        scope: CatalogScope
    ) async throws(JSONRPCError) -> (value: JSONValue, encoded: EncodedJSON?) {
        // The first lists wait for the servers' first attempts, so a client started with the gateway
        // does not keep an empty or partial catalog.
        await registry.awaitStartup()
        let snapshot = self.snapshot
        switch scope {
        case .gateway: break
        case .server(let id):
            let items = scopedList(kind, of: id, snapshot)
            let page = try Pagination.page(items, key: kind.resultKey, cursor: cursor, generation: snapshot.generation)
            return (page, nil)
        case .profile(let name):
            let items = snapshot.profiles[name]?[kind] ?? []
            let page = try Pagination.page(items, key: kind.resultKey, cursor: cursor, generation: snapshot.generation)
            let encoded = listPages.encoded(
                page,
                kind: kind,
                cursor: cursor?.stringValue,
                generation: snapshot.generation,
                profile: name
            )
            return (page, encoded)
        }
        let page = try Pagination.page(
            snapshot.catalog[kind],
            key: kind.resultKey,
            cursor: cursor,
            generation: snapshot.generation
        )
        let encoded = listPages.encoded(page, kind: kind, cursor: cursor?.stringValue, generation: snapshot.generation)
        return (page, encoded)
    }

    /// ``respond(to:session:related:)`` for a transport that must end each request's exchange with a
    /// message (an HTTP POST): a cancelled request gets -32800 "Request cancelled", as the official SDKs'
    /// Streamable HTTP transports answer it, never the upstream's late result or error.
    package func handle(
        _ request: JSONRPCRequest,
        session: DownstreamSession,
        related: RelatedMessageSink?
    ) async
        -> JSONRPCResponse
    {
        await respond(to: request, session: session, related: related)
            ?? JSONRPCResponse(id: request.id, error: Self.requestCancelled)
    }

    /// The answer that ends the exchange of a request its client cancelled (LSP's RequestCancelled code).
    static let requestCancelled = JSONRPCError(code: -32800, message: "Request cancelled")

    /// Notifications from the client: cancellation is relayed; the rest needs nothing from the gateway.
    package func handle(_ notification: JSONRPCNotification, session: DownstreamSession) {
        session.touch()
        if notification.method == MCPMethod.rootsListChanged {
            return relayRootsChanged()
        }
        guard notification.method == MCPMethod.cancelled,
            let id = notification.params?["requestId"].flatMap(JSONRPCID.init)
        else { return }
        session.cancel(id, reason: notification.params?["reason"]?.stringValue ?? "cancelled by the client")
    }

    private func dispatch(
        _ admitted: AdmittedRequest,
        call: CallHandle,
        related: RelatedMessageSink?
    )
        async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError>
    {
        let request = admitted.request
        let params = request.params
        let snapshot = self.snapshot
        let context = ForwardContext(
            snapshot: snapshot,
            session: admitted.session,
            clientCapabilities: admitted.clientCapabilities,
            principal: admitted.principal,
            logLevel: admitted.logLevel ?? admitted.session.logLevel,
            call: call,
            related: related
        )
        switch request.method {
        case MCPMethod.ping:
            return .success([:])
        case MCPMethod.initialize:
            throw .invalidRequest("the session is already initialized")
        case MCPMethod.loggingSetLevel:
            return try await setLogLevel(request, session: admitted.session)
        case MCPMethod.resourcesSubscribe:
            try await subscribe(admitted.session, to: try requiredString(params, "uri"))
            return .success([:])
        case MCPMethod.resourcesUnsubscribe:
            await unsubscribe(admitted.session, from: try requiredString(params, "uri"))
            return .success([:])
        case MCPMethod.toolsCall:
            let name = try requiredString(params, "name")
            if case .profile(let profile) = admitted.session.scope, let view = snapshot.profiles[profile],
                view.spec.toolMode == .search
            {
                return try await searchModeCall(name, request, view, context)
            }
            let route = try toolRoute(name, in: admitted.session.scope, snapshot)
            return try await forward(request, renamedTo: route, context, isToolCall: true)
        case MCPMethod.promptsGet:
            let route = try promptRoute(try requiredString(params, "name"), in: admitted.session.scope, snapshot)
            return try await forward(request, renamedTo: route, context)
        case MCPMethod.resourcesRead:
            let uri = try requiredString(params, "uri")
            guard let server = try resourceServer(uri, in: admitted.session.scope, snapshot) else {
                throw .resourceNotFound(uri)
            }
            return try await forward(request, to: server, params: params, context)
        case MCPMethod.completionComplete:
            return try await complete(request, context.withoutRelated)
        default:
            throw .methodNotFound(request.method)
        }
    }

    /// `completion/complete` goes to the server that owns the prompt or resource it refers to.
    private func complete(
        _ request: JSONRPCRequest,
        _ context: ForwardContext
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        guard var params = request.params?.objectValue, var reference = params["ref"]?.objectValue else {
            throw .invalidParams("completion/complete needs params.ref")
        }
        let scope = context.session.scope
        switch reference["type"]?.stringValue {
        case "ref/prompt":
            let route = try promptRoute(reference["name"]?.stringValue ?? "", in: scope, context.snapshot)
            reference["name"] = .string(route.name)
            params["ref"] = .object(reference)
            return try await forward(request, to: route.server, params: .object(params), context)
        case "ref/resource":
            let uri = reference["uri"]?.stringValue ?? ""
            guard let server = try resourceServer(uri, in: scope, context.snapshot) else {
                throw .resourceNotFound(uri)
            }
            return try await forward(request, to: server, params: .object(params), context)
        default:
            throw .invalidParams("completion/complete: unknown ref type")
        }
    }

    /// A tool name the catalog cannot route. A bare name that several servers have is ambiguous, and the
    /// client learns which exposed names to call instead of a misleading "unknown".
    func unknownTool(_ name: String, _ snapshot: Snapshot) -> JSONRPCError {
        if let withheld = snapshot.catalog.withheldTool(name) {
            return ToolPinning.withheldTool(name, route: withheld.route, changedFields: withheld.changedFields)
        }
        let candidates = snapshot.catalog.bareToolCandidates(name)
        guard candidates.isEmpty else {
            return .invalidParams(
                "Ambiguous tool name: \(name) is offered by \(candidates.count) servers; "
                    + "call one of \(candidates.joined(separator: ", "))"
            )
        }
        return unknownName("tool", name, snapshot)
    }

    /// A name the live catalog does not have. When it carries the prefix of a server that is not connected,
    /// the client learns which server and why, instead of a bare "unknown".
    func unknownName(_ kind: String, _ name: String, _ snapshot: Snapshot) -> JSONRPCError {
        let separator = settings.toolSeparator
        for spec in snapshot.specs where name.hasPrefix(spec.prefix + separator) {
            guard let link = snapshot.links[spec.id], !link.state.isConnected else { continue }
            return .upstreamUnavailable(Self.notConnectedMessage(spec.id, link.state), server: spec.id)
        }
        return .invalidParams("Unknown \(kind): \(name)")
    }

    static func notConnectedMessage(_ server: String, _ state: ConnectionState) -> String {
        var message = "MCP server '\(server)' is not connected (state: \(state.name)"
        if let error = state.lastError { message += ", last error: \(error.message)" }
        return message + ")"
    }

    func requiredString(_ params: JSONValue?, _ key: String) throws(JSONRPCError) -> String {
        guard let value = params?[key]?.stringValue else { throw .invalidParams("params.\(key) must be a string") }
        return value
    }
}
