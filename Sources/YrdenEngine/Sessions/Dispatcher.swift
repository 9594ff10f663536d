import Logging
import YrdenAudit
import YrdenConfig
import YrdenProtocol
import YrdenTelemetry
import YrdenTransport

/// Sessions and dispatch: what a client's admitted request does (answered here, forwarded to its server under
/// the name the server knows, or relayed to every upstream), and what upstreams send that sessions must hear
/// (log messages, resource updates, elicitation notices).
///
/// Holds no state of its own but which clients follow which resources; it reads the registry's snapshot, the
/// catalog views' routes, and hands calls of the other era to the bridge.
final class Dispatcher: Sendable {
    typealias Snapshot = ServerRegistry.Snapshot

    let registry: ServerRegistry
    let views: CatalogViews
    let bridge: EraBridge
    let sessions: SessionStore
    let connector: UpstreamConnector
    let logger: Logger
    /// Which clients follow which upstream resources.
    let resourceSubscriptions = ResourceSubscriptions()
    /// Users' own sessions with `perUser` servers of the handshake era, per server.
    let userSessions = UserSessionTables()
    /// The `limits` every forwarded request is checked against.
    let limiter: RateLimiter
    /// Where each forwarded request is recorded; `nil`: nowhere.
    let audit: AuditTrail?
    /// Where the routing and upstream spans go; `nil`: tracing is off.
    let tracer: Tracer?

    init(
        registry: ServerRegistry,
        views: CatalogViews,
        bridge: EraBridge,
        sessions: SessionStore,
        connector: UpstreamConnector,
        limiter: RateLimiter,
        audit: AuditTrail?,
        tracer: Tracer? = nil,
        logger: Logger
    ) {
        self.tracer = tracer
        self.registry = registry
        self.views = views
        self.bridge = bridge
        self.sessions = sessions
        self.connector = connector
        self.limiter = limiter
        self.audit = audit
        self.logger = logger
    }

    var snapshot: Snapshot { registry.snapshot }

    func dispatch(
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
            caller: admitted.caller,
            logLevel: admitted.logLevel ?? admitted.session.logLevel,
            call: call,
            related: related,
            trace: admitted.trace
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
            let route = try views.toolRoute(name, in: admitted.session.scope, snapshot)
            return try await forward(request, renamedTo: route, context, isToolCall: true)
        case MCPMethod.promptsGet:
            let route = try views.promptRoute(try requiredString(params, "name"), in: admitted.session.scope, snapshot)
            return try await forward(request, renamedTo: route, context)
        case MCPMethod.resourcesRead:
            let uri = try requiredString(params, "uri")
            guard let server = try views.resourceServer(uri, in: admitted.session.scope, snapshot) else {
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
            let route = try views.promptRoute(reference["name"]?.stringValue ?? "", in: scope, context.snapshot)
            reference["name"] = .string(route.name)
            params["ref"] = .object(reference)
            return try await forward(request, to: route.server, params: .object(params), context)
        case "ref/resource":
            let uri = reference["uri"]?.stringValue ?? ""
            guard let server = try views.resourceServer(uri, in: scope, context.snapshot) else {
                throw .resourceNotFound(uri)
            }
            return try await forward(request, to: server, params: .object(params), context)
        default:
            throw .invalidParams("completion/complete: unknown ref type")
        }
    }

    func requiredString(_ params: JSONValue?, _ key: String) throws(JSONRPCError) -> String {
        guard let value = params?[key]?.stringValue else { throw .invalidParams("params.\(key) must be a string") }
        return value
    }

    /// A client's roots changed: every connected upstream is told in its era (see
    /// ``UpstreamClient/rootsChanged()``), since any may ask that client again during its next call.
    func relayRootsChanged() {
        for link in snapshot.links.values where link.state.isConnected { link.client?.rootsChanged() }
    }
}
