import YrdenConfig
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `GET /logs`: the gateway's ring and every server's, merged; or one server's.
extension AdminAPI {
    /// Every ring's entries are gathered, filtered and serialized off the event loop (200 servers' rings are
    /// thousands of entries), never cached: the rings change all the time.
    func listLogs(_ request: HTTPRequest) async throws(AdminProblem) -> HTTPResponse {
        let query = try LogQuery(parsing: request.query, separator: gateway.settings.toolSeparator)
        let rings: [LogRing]
        if let server = query.server {
            guard let ring = gateway.registry.logRing(server) else { throw .unknownServer(server) }
            rings = [ring]
        } else {
            rings = [gateway.log] + gateway.registry.logRings
        }
        return await heavyReads.answer(.logs) {
            let entries = rings.flatMap { $0.recent() }
            return ["entries": .array(query.select(from: entries).map(LogQuery.json))]
        }
    }
}
