import YrdenConfig
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol
import YrdenTransport

/// `/healthz` (the process is alive and serving) and `/readyz` (every enabled upstream has finished its
/// first connection attempt, so the catalog a client sees is settled).
package struct HealthEndpoint: Sendable {
    let gateway: Gateway
    let startedAt = ContinuousClock.now

    package init(gateway: Gateway) {
        self.gateway = gateway
    }

    package func liveness() -> HTTPResponse {
        FrontResponses.json(200, report(status: "ok"))
    }

    package func readiness() -> HTTPResponse {
        let ready = gateway.registry.firstAttemptsFinished
        return FrontResponses.json(ready ? 200 : 503, report(status: ready ? "ready" : "starting"))
    }

    private func report(status: String) -> JSONValue {
        var servers = JSONObject()
        for server in gateway.registry.statuses {
            var entry: JSONObject = ["state": .string(server.state.name), "transport": .string(server.transportName)]
            if let era = server.era { entry["era"] = .string(era) }
            if server.inAggregate {
                entry["tools"] = .int(server.counts.tools)
                entry["prompts"] = .int(server.counts.prompts)
                entry["resources"] = .int(server.counts.resources)
            }
            if let error = server.state.lastError ?? server.lastFailure?.error {
                var lastError: JSONObject = ["kind": .string(error.kind.rawValue), "message": .string(error.message)]
                if let status = error.httpStatus { lastError["httpStatus"] = .int(status) }
                if let at = server.lastFailure?.at { lastError["at"] = .string(RFC3339.string(epochSeconds: at)) }
                entry["lastError"] = .object(lastError)
            }
            servers[server.id] = .object(entry)
        }
        let uptime = ContinuousClock.now - startedAt
        return [
            "status": .string(status),
            "version": .string(Gateway.version),
            "timestamp": .string(RFC3339.string(epochSeconds: WallClock.now(), fractionDigits: 0)),
            "uptimeSeconds": .double(
                (Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18).rounded(toPlaces: 3)
            ),
            "sessions": .int(gateway.sessions.count),
            "servers": .object(servers),
        ]
    }
}

extension Double {
    fileprivate func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
