import Logging
import YrdenConfig
import YrdenEngine
import YrdenProtocol

/// `GET /api/v1/logs?server=&level=&since=&limit=`: which entries to return, and the selection itself.
struct LogQuery: Sendable, Hashable {
    /// Only this server's entries; `nil` for every server's and the gateway's own.
    var server: String?
    var minimumLevel: Logger.Level = .trace
    /// Only entries later than this, in microseconds since 1970.
    var since: Int64?
    var limit = Self.defaultLimit

    static let defaultLimit = 100
    static let limits = 1...1000

    init(server: String? = nil, minimumLevel: Logger.Level = .trace, since: Int64? = nil, limit: Int = defaultLimit) {
        self.server = server
        self.minimumLevel = minimumLevel
        self.since = since
        self.limit = limit
    }

    /// Reads the query parameters; every one that is not valid is a problem whose path is its name.
    init(parsing query: [String: String], separator: String) throws(AdminProblem) {
        var problems: [ConfigProblem] = []
        if let server = query["server"] {
            if ServerIdentifier.isValid(server, separator: separator) {
                self.server = server
            } else {
                problems.append(
                    ConfigProblem(
                        path: "server",
                        message: "\(JSONValue.string(server).jsonText) is not a server id",
                        fix: "use the id of a configured server, as GET /api/v1/servers lists them"
                    )
                )
            }
        }
        if let level = query["level"] {
            if let parsed = Logger.Level(rawValue: level) {
                minimumLevel = parsed
            } else {
                problems.append(
                    ConfigProblem(
                        path: "level",
                        message: "\(JSONValue.string(level).jsonText) is not a log level",
                        fix: "use one of " + Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                    )
                )
            }
        }
        if let since = query["since"] {
            if let parsed = RFC3339.epochMicroseconds(parsing: since) {
                self.since = parsed
            } else {
                problems.append(
                    ConfigProblem(
                        path: "since",
                        message: "\(JSONValue.string(since).jsonText) is not an RFC 3339 date-time",
                        fix: "write it like 2026-05-04T10:15:02Z (the time of an entry works)"
                    )
                )
            }
        }
        if let limit = query["limit"] {
            if let parsed = Int(limit), Self.limits.contains(parsed) {
                self.limit = parsed
            } else {
                problems.append(
                    ConfigProblem(
                        path: "limit",
                        message: "\(JSONValue.string(limit).jsonText) is not a whole number from 1 to 1000",
                        fix: "ask for 1 to 1000 entries; leave limit out for the newest 100"
                    )
                )
            }
        }
        guard problems.isEmpty else {
            throw .badRequest("the query has \(problems.count == 1 ? "a problem" : "problems")", errors: problems)
        }
    }

    /// Of `entries` (from any number of rings, in any order), those that pass the filters: the newest
    /// `limit`, oldest first.
    func select(from entries: [LogRing.Entry]) -> [LogRing.Entry] {
        let matching = entries.filter { entry in
            guard entry.level >= minimumLevel else { return false }
            guard let since else { return true }
            // Compared at the precision the API prints, so an entry's own `time` sent back excludes it.
            return RFC3339.microseconds(epochSeconds: entry.time) > since
        }
        return Array(matching.sorted { $0.time < $1.time }.suffix(limit))
    }

    /// `LogEntry`: the time in UTC with microseconds, so it can be sent back as `since`.
    static func json(_ entry: LogRing.Entry) -> JSONValue {
        [
            "time": .string(RFC3339.string(epochSeconds: entry.time, fractionDigits: 6)),
            "level": .string(entry.level.rawValue),
            "server": entry.server.map(JSONValue.string) ?? .null,
            "event": .string(entry.event),
            "message": .string(entry.message),
            "metadata": .object(
                JSONObject(entry.metadata.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
            ),
        ]
    }
}
