import YrdenConfig
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `GET /logs`: the gateway's ring and every server's, merged; or one server's.
extension AdminAPI {
    func listLogs(_ request: HTTPRequest) throws(AdminProblem) -> HTTPResponse {
        let query = try LogQuery(parsing: request.query, separator: gateway.settings.toolSeparator)
        let snapshot = gateway.snapshot
        var entries: [LogRing.Entry]
        if let server = query.server {
            guard let link = snapshot.links[server] else { throw .unknownServer(server) }
            entries = link.log.recent()
        } else {
            entries = gateway.log.recent()
            for id in snapshot.order {
                entries += snapshot.links[id]?.log.recent() ?? []
            }
        }
        return FrontResponses.json(200, ["entries": .array(query.select(from: entries).map(LogQuery.json))])
    }
}
