import Logging
import YrdenEngine
import YrdenHTTPServer

/// Sends each HTTP request to the endpoint that owns its path.
package struct FrontRouter: Sendable {
    let mcp: MCPEndpoint
    let health: HealthEndpoint

    package init(gateway: Gateway, allowedOrigins: [String], logger: Logger) {
        mcp = MCPEndpoint(gateway: gateway, origins: OriginPolicy(allowed: allowedOrigins), logger: logger)
        health = HealthEndpoint(gateway: gateway)
    }

    package func handle(_ request: HTTPRequest) async -> HTTPResponse {
        switch request.path {
        case "/mcp", "/mcp/":
            return await mcp.handle(request)
        case "/healthz":
            return request.method == "GET" ? health.liveness() : FrontResponses.methodNotAllowed("GET")
        case "/readyz":
            return request.method == "GET" ? health.readiness() : FrontResponses.methodNotAllowed("GET")
        default:
            return FrontResponses.notFound
        }
    }
}
