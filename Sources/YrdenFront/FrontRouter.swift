import Logging
import NIOCore
import NIOPosix
import Prometheus
import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol
import YrdenResourceAuth

/// Sends each HTTP request to the endpoint that owns its path, once it passed the rules every path shares.
///
/// Every path answers only to the gateway's own names (``HostPolicy``, against DNS rebinding), and the
/// read-only ones (`/healthz`, `/readyz`, `/metrics`) only to the browser origins the MCP endpoint accepts;
/// `/mcp` and the admin API check `Origin` themselves, each by its own rule.
package struct FrontRouter: Sendable {
    let hosts: HostPolicy
    let origins: OriginPolicy
    let mcp: MCPEndpoint
    let health: HealthEndpoint
    let admin: AdminAPI
    let metrics: MetricsEndpoint
    let gateway: Gateway
    let legacySSE: LegacySSEEndpoint
    let webSocket: WebSocketEndpoint
    let oauthCallback: OAuthCallbackEndpoint
    let signInLink: SignInLinkEndpoint
    /// `nil` when `gateway.console` is off.
    let console: ConsoleEndpoint?
    /// Accepted on a profile's endpoint beside the profile's own tokens, as on `/mcp`.
    let adminToken: String?
    /// With `gateway.auth`: access tokens checked, and the protected-resource metadata served.
    let resourceGuard: ResourceGuard?

    package init(
        gateway: Gateway,
        store: ConfigStore,
        signIns: SignInControl,
        settings: GatewaySettings,
        metrics: PrometheusCollectorRegistry,
        appsSandboxPort: Int? = nil,
        replicas: (any ReplicaHandOff)? = nil,
        issuerHTTP: IssuerHTTP? = nil,
        dataDirectory: String? = nil,
        webSocketLoops: (any EventLoopGroup)? = nil,
        logger: Logger
    ) {
        hosts = HostPolicy(listenHost: settings.listenHost, publicURL: settings.publicURL)
        origins = OriginPolicy(allowed: settings.allowedOrigins)
        resourceGuard = settings.auth.flatMap { auth in
            issuerHTTP.map { ResourceGuard(settings: auth, http: $0, logger: logger) }
        }
        mcp = MCPEndpoint(
            gateway: gateway,
            origins: origins,
            clients: ClientTokenPolicy(
                clientTokens: settings.clientTokens,
                adminToken: settings.adminToken,
                guarded: resourceGuard != nil
            ),
            replicas: replicas,
            resourceGuard: resourceGuard,
            logger: logger
        )
        health = HealthEndpoint(gateway: gateway)
        self.gateway = gateway
        legacySSE = LegacySSEEndpoint(
            gateway: gateway,
            channels: LegacySSEChannels(limit: settings.maxSessions, perClientLimit: settings.maxSessionsPerClient)
        )
        webSocket = WebSocketEndpoint(
            gateway: gateway,
            sockets: OpenWebSockets(limit: settings.maxSessions, perClientLimit: settings.maxSessionsPerClient),
            // The HTTP client's event loops (NIO's shared ones when none is given): no threads of the socket's own.
            loops: webSocketLoops ?? MultiThreadedEventLoopGroup.singleton,
            limits: WebSocketLimits(
                maxMessageBytes: settings.maxBodyBytes,
                pingInterval: settings.webSocketPingInterval,
                pongTimeout: settings.webSocketPongTimeout
            ),
            logger: logger,
            cutOff: { [metrics] reason in
                metrics.makeCounter(
                    name: "yrden_websocket_cut_off_total",
                    labels: [("reason", reason)],
                    help: "Downstream WebSockets the gateway closed: outbox_full (the client did not read), "
                        + "message_too_large (1009)"
                )
                .increment()
            }
        )
        admin = AdminAPI(
            gateway: gateway,
            store: store,
            adminToken: settings.adminToken,
            logger: logger,
            metrics: metrics,
            dataDirectory: dataDirectory
        )
        adminToken = settings.adminToken
        self.metrics = MetricsEndpoint(registry: metrics)
        oauthCallback = OAuthCallbackEndpoint(signIns: signIns)
        signInLink = SignInLinkEndpoint(signIns: signIns)
        console =
            settings.console
            ? ConsoleEndpoint(
                sandboxPort: appsSandboxPort,
                adminTokenRequired: settings.adminToken != nil,
                toolSeparator: settings.toolSeparator
            ) : nil
    }

    /// The dedicated OAuth callback listener's handler: `/oauth/callback`, the sign-in links users are given
    /// beside it (`/oauth/sign-in/{id}`), and nothing else.
    package func handleOAuthCallbackOnly(_ request: HTTPRequest) async -> HTTPResponse {
        if let refusal = refusal(of: request) { return refusal }
        if request.path.hasPrefix(SignInLinkEndpoint.prefix) { return await signInLink.handle(request) }
        return request.path == "/oauth/callback" ? await oauthCallback.handle(request) : FrontResponses.notFound
    }

    package func handle(_ request: HTTPRequest) async -> HTTPResponse {
        if let refusal = refusal(of: request) { return refusal }
        switch request.path {
        case "/mcp", "/mcp/":
            return await mcp.handle(request)
        case "/sse", "/messages":
            return await legacy(request, base: "", scope: .gateway)
        case "/ws":
            return await webSocket(request, scope: .gateway)
        case "/healthz":
            return request.method == "GET" ? health.liveness() : FrontResponses.methodNotAllowed("GET")
        case "/readyz":
            return request.method == "GET" ? health.readiness() : FrontResponses.methodNotAllowed("GET")
        case "/metrics":
            return metrics.handle(request)
        case "/oauth/callback":
            return await oauthCallback.handle(request)
        case let path where path.hasPrefix(SignInLinkEndpoint.prefix):
            return await signInLink.handle(request)
        case let path where path.hasPrefix(AdminAPI.prefix):
            return await admin.handle(request)
        case let path where path.hasPrefix(Self.serverEndpointPrefix):
            return await serverEndpoint(request)
        case let path where path.hasPrefix(Self.profileEndpointPrefix):
            return await profileEndpoint(request)
        case let path where path.hasPrefix(ResourceGuard.metadataPrefix):
            return protectedResourceMetadata(request)
        case let path where console?.handles(path) == true:
            return console?.handle(request) ?? FrontResponses.notFound
        default:
            return FrontResponses.notFound
        }
    }

    /// The MCP Apps sandbox listener's handler: the sandbox's own files and nothing else, to the gateway's own
    /// names only (``HostPolicy``), framed only by the console on `consolePort`.
    package static func appsSandboxHandler(
        settings: GatewaySettings,
        consolePort: @escaping @Sendable () -> Int
    ) -> HTTPHandler {
        let hosts = HostPolicy(listenHost: settings.listenHost, publicURL: settings.publicURL)
        let sandbox = AppSandboxEndpoint(consolePort: consolePort)
        return { request in
            guard hosts.permits(request.headers["Host"]) else {
                return HTTPResponse.text(403, "\(request.headers["Host"] ?? "") is not a name of this gateway\n")
            }
            return sandbox.handle(request)
        }
    }

    static let serverEndpointPrefix = "/servers/"

    /// `/servers/{id}/mcp`: the MCP endpoint for one configured server alone, under its own names.
    private func serverEndpoint(_ request: HTTPRequest) async -> HTTPResponse {
        let rest = request.path.dropFirst(Self.serverEndpointPrefix.count)
        guard let slash = rest.firstIndex(of: "/") else { return FrontResponses.notFound }
        let id = String(rest[..<slash])
        let endpoint = rest[slash...]
        guard ["/mcp", "/mcp/", "/sse", "/messages", "/ws"].contains(endpoint) else { return FrontResponses.notFound }
        guard gateway.registry.spec(of: id) != nil else {
            return FrontResponses.rpcError(404, .invalidRequest("There is no MCP server \(id) on this gateway"))
        }
        if endpoint == "/sse" || endpoint == "/messages" {
            return await legacy(request, base: Self.serverEndpointPrefix + id, scope: .server(id))
        }
        if endpoint == "/ws" { return await webSocket(request, scope: .server(id)) }
        return await mcp.scoped(to: .server(id)).handle(request)
    }

    static let profileEndpointPrefix = "/mcp/"

    /// `/mcp/{profile}` (and its legacy `/sse` and `/messages`): the MCP endpoint for a profile's view, open to the
    /// profile's own client tokens when it has any, else to the gateway's.
    private func profileEndpoint(_ request: HTTPRequest) async -> HTTPResponse {
        let rest = request.path.dropFirst(Self.profileEndpointPrefix.count)
        let name = String(rest.prefix { $0 != "/" })
        let endpoint = rest.dropFirst(name.count)
        guard ["", "/", "/sse", "/messages", "/ws"].contains(endpoint) else { return FrontResponses.notFound }
        guard let spec = gateway.registry.profileSpec(name) else {
            return FrontResponses.rpcError(404, .invalidRequest("There is no profile \(name) on this gateway"))
        }
        var scoped = mcp.scoped(to: .profile(name))
        if !spec.clientTokens.isEmpty {
            scoped = scoped.accepting(
                ClientTokenPolicy(
                    clientTokens: spec.clientTokens,
                    adminToken: adminToken,
                    guarded: resourceGuard != nil
                )
            )
        }
        if spec.isRestricted { scoped = scoped.granting(ProfileGrants(users: spec.users, groups: spec.groups)) }
        if endpoint == "/sse" || endpoint == "/messages" {
            return await legacy(
                request,
                base: Self.profileEndpointPrefix + name,
                scope: .profile(name),
                endpoint: scoped
            )
        }
        if endpoint == "/ws" { return await webSocket(request, scope: .profile(name), endpoint: scoped) }
        return await scoped.handle(request)
    }

    /// RFC 9728 protected-resource metadata, with `gateway.auth`: `/.well-known/oauth-protected-resource` followed
    /// by the path of `/mcp`, of a profile's endpoint or of a server's (or nothing, for the gateway's audience).
    private func protectedResourceMetadata(_ request: HTTPRequest) -> HTTPResponse {
        guard let resourceGuard else { return FrontResponses.notFound }
        guard request.method == "GET" else { return FrontResponses.methodNotAllowed("GET") }
        let path = String(request.path.dropFirst(ResourceGuard.metadataPrefix.count))
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let known: Bool =
            switch parts.count {
            case 1: path.isEmpty
            case 2: path == "/mcp"
            case 3: parts[1] == "mcp" && gateway.registry.profileSpec(parts[2]) != nil
            case 4: parts[1] == "servers" && parts[3] == "mcp" && gateway.registry.spec(of: parts[2]) != nil
            default: false
            }
        guard known else { return FrontResponses.notFound }
        return FrontResponses.json(200, resourceGuard.metadata(path: path))
    }

    /// The legacy HTTP+SSE transport's two paths, under the MCP endpoint's access rules.
    private func legacy(
        _ request: HTTPRequest,
        base: String,
        scope: CatalogScope,
        endpoint: MCPEndpoint? = nil
    ) async -> HTTPResponse {
        let caller: Caller
        switch await (endpoint ?? mcp).admission(request) {
        case .refused(let response): return response
        case .admitted(let admitted): caller = admitted
        }
        return request.path.hasSuffix("/sse")
            ? legacySSE.openStream(request, base: base, scope: scope, caller: caller)
            : legacySSE.post(request, base: base, caller: caller)
    }

    /// The WebSocket transport, under the MCP endpoint's access rules: checked before the upgrade, so a refused
    /// one is answered as `/mcp` answers (401, 403) and never switches protocols.
    private func webSocket(
        _ request: HTTPRequest,
        scope: CatalogScope,
        endpoint: MCPEndpoint? = nil
    ) async -> HTTPResponse {
        switch await (endpoint ?? mcp.scoped(to: scope)).admission(request) {
        case .refused(let response): return response
        case .admitted(let caller): return webSocket.open(request, scope: scope, caller: caller)
        }
    }

    /// The answer to a request that breaks a rule shared by every path, in the format of the path's endpoint.
    private func refusal(of request: HTTPRequest) -> HTTPResponse? {
        let host = request.headers["Host"]
        if !hosts.permits(host) {
            return Self.forbidden(
                request.path,
                "\(host ?? "") is not a name of this gateway; use its listen address, localhost or 127.0.0.1"
            )
        }
        let readOnly = ["/healthz", "/readyz", "/metrics"].contains(request.path)
        if readOnly, let origin = request.headers["Origin"], !origins.permits(origin) {
            return Self.forbidden(request.path, "requests from \(origin) are not allowed")
        }
        return nil
    }

    private static func forbidden(_ path: String, _ reason: String) -> HTTPResponse {
        if path.hasPrefix(AdminAPI.prefix) { return AdminProblem.forbidden(reason).response }
        if path == "/mcp" || path == "/mcp/" || path == "/ws" {
            return FrontResponses.rpcError(403, JSONRPCError(code: -32000, message: reason))
        }
        return HTTPResponse.text(403, reason + "\n")
    }
}
