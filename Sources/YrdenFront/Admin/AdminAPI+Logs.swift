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
        let snapshot = gateway.snapshot
        let rings: [LogRing]
        if let server = query.server {
            guard let link = snapshot.links[server] else { throw .unknownServer(server) }
            rings = [link.log]
        } else {
            rings = [gateway.log] + snapshot.order.compactMap { snapshot.links[$0]?.log }
        }
        return await heavyReads.answer(.logs) {
            let entries = rings.flatMap { $0.recent() }
            return ["entries": .array(query.select(from: entries).map(LogQuery.json))]
        }
    }
}
