import Logging
import Prometheus
import YrdenConfig
import YrdenEngine
import YrdenHTTPServer

/// Sends each HTTP request to the endpoint that owns its path.
package struct FrontRouter: Sendable {
    let mcp: MCPEndpoint
    let health: HealthEndpoint
    let admin: AdminAPI
    let metrics: MetricsEndpoint
    let oauthCallback: OAuthCallbackEndpoint

    package init(
        gateway: Gateway,
        store: ConfigStore,
        settings: GatewaySettings,
        metrics: PrometheusCollectorRegistry,
        logger: Logger
    ) {
        mcp = MCPEndpoint(
            gateway: gateway,
            origins: OriginPolicy(allowed: settings.allowedOrigins),
            clients: ClientTokenPolicy(tokens: settings.clientTokens),
            logger: logger
        )
        health = HealthEndpoint(gateway: gateway)
        admin = AdminAPI(gateway: gateway, store: store, adminToken: settings.adminToken, logger: logger)
        self.metrics = MetricsEndpoint(registry: metrics)
        oauthCallback = OAuthCallbackEndpoint(gateway: gateway)
    }

    /// The dedicated OAuth callback listener's handler: `/oauth/callback` and nothing else.
    package func handleOAuthCallbackOnly(_ request: HTTPRequest) async -> HTTPResponse {
        request.path == "/oauth/callback" ? await oauthCallback.handle(request) : FrontResponses.notFound
    }

    package func handle(_ request: HTTPRequest) async -> HTTPResponse {
        switch request.path {
        case "/mcp", "/mcp/":
            return await mcp.handle(request)
        case "/healthz":
            return request.method == "GET" ? health.liveness() : FrontResponses.methodNotAllowed("GET")
        case "/readyz":
            return request.method == "GET" ? health.readiness() : FrontResponses.methodNotAllowed("GET")
        case "/metrics":
            return metrics.handle(request)
        case "/oauth/callback":
            return await oauthCallback.handle(request)
        case let path where path.hasPrefix(AdminAPI.prefix):
            return await admin.handle(request)
        default:
            return FrontResponses.notFound
        }
    }
}
