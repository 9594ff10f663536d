import Prometheus
import YrdenHTTPServer

/// `GET /metrics`: every metric the process recorded, in the Prometheus text format.
///
/// Unauthenticated like the health endpoints, so a scraper needs no admin token; it carries counts and
/// server ids only, never a secret.
package struct MetricsEndpoint: Sendable {
    let registry: PrometheusCollectorRegistry

    package init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" else { return FrontResponses.methodNotAllowed("GET") }
        return HTTPResponse(
            status: 200,
            headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
            body: .bytes(registry.emitToBuffer())
        )
    }
}
