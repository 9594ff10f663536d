import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// Receives the server-to-client messages that belong to one request (its progress), for the transport to
/// deliver on that request's own stream.
package typealias RelatedMessageSink = @Sendable (JSONRPCMessage) -> Void

extension Gateway {
    /// Answers one request of an initialized session. Never throws and never hangs past the server's timeout:
    /// every failure becomes the JSON-RPC error the client should see.
    package func handle(
        _ request: JSONRPCRequest,
        session: DownstreamSession,
        related: RelatedMessageSink?
    ) async
        -> JSONRPCResponse
    {
        session.touch()
        let outcome: Result<JSONValue, JSONRPCError>
        do {
            outcome = try await dispatch(request, session: session, related: related)
        } catch {
            outcome = .failure(error)
        }
        return JSONRPCResponse(id: request.id, outcome: outcome)
    }

    /// Notifications from the client: cancellation is relayed; the rest needs nothing from the gateway.
    package func handle(_ notification: JSONRPCNotification, session: DownstreamSession) {
        session.touch()
        guard notification.method == MCPMethod.cancelled,
            let id = notification.params?["requestId"].flatMap(JSONRPCID.init)
        else { return }
        session.cancel(id, reason: notification.params?["reason"]?.stringValue ?? "cancelled by the client")
    }

    private func dispatch(
        _ request: JSONRPCRequest,
        session: DownstreamSession,
        related: RelatedMessageSink?
    )
        async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError>
    {
        let snapshot = self.snapshot
        let params = request.params
        if let kind = ServerCatalog.Kind(listMethod: request.method) {
            let page = try Pagination.page(
                snapshot.catalog[kind],
                key: kind.resultKey,
                cursor: params?["cursor"],
                generation: snapshot.generation
            )
            return .success(page)
        }
        switch request.method {
        case MCPMethod.ping:
            return .success([:])
        case MCPMethod.initialize:
            throw .invalidRequest("the session is already initialized")
        case MCPMethod.toolsCall:
            let name = try requiredString(params, "name")
            guard let route = snapshot.catalog.routeTool(name) else { throw unknownName("tool", name, snapshot) }
            return try await forward(
                request,
                renamedTo: route,
                snapshot: snapshot,
                session: session,
                related: related,
                isToolCall: true
            )
        case MCPMethod.promptsGet:
            let name = try requiredString(params, "name")
            guard let route = snapshot.catalog.promptRoutes[name] else {
                throw .invalidParams("Unknown prompt: \(name)")
            }
            return try await forward(request, renamedTo: route, snapshot: snapshot, session: session, related: related)
        case MCPMethod.resourcesRead:
            let uri = try requiredString(params, "uri")
            guard let server = snapshot.catalog.routeResource(uri) else { throw .resourceNotFound(uri) }
            return try await forward(
                request,
                to: server,
                params: params,
                snapshot: snapshot,
                session: session,
                related: related
            )
        case MCPMethod.completionComplete:
            return try await complete(request, snapshot: snapshot, session: session)
        default:
            throw .methodNotFound(request.method)
        }
    }

    /// `completion/complete` goes to the server that owns the prompt or resource it refers to.
    private func complete(
        _ request: JSONRPCRequest,
        snapshot: Snapshot,
        session: DownstreamSession
    )
        async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError>
    {
        guard var params = request.params?.objectValue, var reference = params["ref"]?.objectValue else {
            throw .invalidParams("completion/complete needs params.ref")
        }
        switch reference["type"]?.stringValue {
        case "ref/prompt":
            let name = reference["name"]?.stringValue ?? ""
            guard let route = snapshot.catalog.promptRoutes[name] else { throw unknownName("prompt", name, snapshot) }
            reference["name"] = .string(route.name)
            params["ref"] = .object(reference)
            return try await forward(
                request,
                to: route.server,
                params: .object(params),
                snapshot: snapshot,
                session: session,
                related: nil
            )
        case "ref/resource":
            let uri = reference["uri"]?.stringValue ?? ""
            guard let server = snapshot.catalog.routeResource(uri) else { throw .resourceNotFound(uri) }
            return try await forward(
                request,
                to: server,
                params: .object(params),
                snapshot: snapshot,
                session: session,
                related: nil
            )
        default:
            throw .invalidParams("completion/complete: unknown ref type")
        }
    }

    /// A name the live catalog does not have. When it carries the prefix of a server that is not connected,
    /// the client learns which server and why, instead of a bare "unknown".
    private func unknownName(_ kind: String, _ name: String, _ snapshot: Snapshot) -> JSONRPCError {
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

    private func requiredString(_ params: JSONValue?, _ key: String) throws(JSONRPCError) -> String {
        guard let value = params?[key]?.stringValue else { throw .invalidParams("params.\(key) must be a string") }
        return value
    }

    private func forward(
        _ request: JSONRPCRequest,
        renamedTo route: Route,
        snapshot: Snapshot,
        session: DownstreamSession,
        related: RelatedMessageSink?,
        isToolCall: Bool = false
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        var params = request.params?.objectValue ?? [:]
        params["name"] = .string(route.name)
        return try await forward(
            request,
            to: route.server,
            params: .object(params),
            snapshot: snapshot,
            session: session,
            related: related,
            isToolCall: isToolCall
        )
    }

    /// Sends the request to `server` under a fresh upstream id and maps the answer back. Progress for it is
    /// relayed to `related` with the client's own token; the client's cancellation reaches the upstream.
    private func forward(
        _ request: JSONRPCRequest,
        to server: String,
        params: JSONValue?,
        snapshot: Snapshot,
        session: DownstreamSession,
        related: RelatedMessageSink?,
        isToolCall: Bool = false
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        guard let link = snapshot.links[server] else { throw .internalError("no server \(server)") }
        guard let client = link.client, link.state.isConnected else {
            throw .upstreamUnavailable(Self.notConnectedMessage(server, link.state), server: server)
        }
        var forwarded = params?.objectValue ?? [:]
        var meta = forwarded["_meta"]?.objectValue ?? [:]
        let clientToken = meta.removeValue("progressToken")
        forwarded["_meta"] = meta.isEmpty ? nil : .object(meta)
        var onProgress: (@Sendable (JSONValue) -> Void)?
        if let clientToken, let related {
            onProgress = { upstreamParams in
                var progress = upstreamParams.objectValue ?? [:]
                progress["progressToken"] = clientToken
                related(.notification(JSONRPCNotification(method: MCPMethod.progress, params: .object(progress))))
            }
        }
        let handle = CallHandle()
        guard session.begin(request.id, handle: handle) else {
            throw .invalidRequest("request id \(request.id) is already in flight in this session")
        }
        defer { session.finish(request.id) }
        let timeouts = link.spec.timeouts
        let timeout = isToolCall ? timeouts.toolCall : timeouts.request
        let options = RequestOptions(
            timeout: timeout,
            maxTotalTimeout: timeout * 4,
            onProgress: onProgress,
            handle: handle
        )
        let started = ContinuousClock.now
        do {
            let answer = try await client.request(request.method, params: .object(forwarded), options: options)
            GatewayMetrics.recordRequest(
                server: server,
                method: request.method,
                duration: .now - started,
                failure: nil
            )
            return answer
        } catch {
            GatewayMetrics.recordRequest(
                server: server,
                method: request.method,
                duration: .now - started,
                failure: error.kind
            )
            throw .upstreamUnavailable("MCP server '\(server)' failed: \(error.message)", server: server)
        }
    }
}
