import Logging
import Testing
import YrdenConfig
import YrdenEngine
import YrdenProtocol

@testable import YrdenFront

@Suite struct LogQueryTests {
    @Test func withoutParametersEverythingNewestHundred() throws {
        let query = try LogQuery(parsing: [:], separator: "__")
        #expect(query == LogQuery(server: nil, minimumLevel: .trace, since: nil, limit: 100))
    }

    @Test func readsEveryParameter() throws {
        let query = try LogQuery(
            parsing: ["server": "time", "level": "warning", "since": "1970-01-01T00:00:01Z", "limit": "5"],
            separator: "__"
        )
        #expect(query == LogQuery(server: "time", minimumLevel: .warning, since: 1_000_000, limit: 5))
    }

    @Test func everyBadParameterIsAProblemNamedAfterIt() {
        #expect(throws: AdminProblem.self) { try LogQuery(parsing: ["limit": "0"], separator: "__") }
        do {
            _ = try LogQuery(
                parsing: ["server": "Bad Id", "level": "loud", "since": "yesterday", "limit": "1001"],
                separator: "__"
            )
            Issue.record("accepted a bad query")
        } catch {
            #expect(error.status == 400)
            #expect(error.errors.map(\.path) == ["server", "level", "since", "limit"])
        }
        for limit in ["-1", "abc", "1.5", "", "99999999999999999999"] {
            #expect(throws: AdminProblem.self) { try LogQuery(parsing: ["limit": limit], separator: "__") }
        }
    }

    @Test func selectsByLevelNewestFirstAndReturnsOldestFirst() {
        let ring = LogRing(server: "time")
        ring.append("one", level: .debug, event: "state")
        ring.append("two", level: .warning, event: "state")
        ring.append("three", level: .error, event: "stderr")
        ring.append("four", level: .info, event: "state")
        let entries = ring.recent()

        #expect(LogQuery().select(from: entries.reversed()).map(\.message) == ["one", "two", "three", "four"])
        #expect(LogQuery(minimumLevel: .warning).select(from: entries).map(\.message) == ["two", "three"])
        #expect(LogQuery(limit: 2).select(from: entries).map(\.message) == ["three", "four"])
        #expect(LogQuery(minimumLevel: .info, limit: 1).select(from: entries).map(\.message) == ["four"])
    }

    @Test func sinceExcludesTheEntryWhoseTimeWasSentBack() throws {
        let ring = LogRing(server: nil)
        ring.append("old", event: "config")
        let old = ring.recent()[0]
        while WallClock.now() - old.time < 0.002 {}
        ring.append("new", event: "config")
        let printed = try #require(LogQuery.json(old)["time"]?.stringValue)
        let query = try LogQuery(parsing: ["since": printed], separator: "__")
        #expect(query.select(from: ring.recent()).map(\.message) == ["new"])
    }

    @Test func rendersTheLogEntrySchema() throws {
        let ring = LogRing(server: "time")
        ring.append("upstream failed", level: .error, event: "state", metadata: ["kind": "process", "b": "2"])
        let json = LogQuery.json(ring.recent()[0])
        #expect(json["server"] == "time")
        #expect(json["level"] == "error")
        #expect(json["event"] == "state")
        #expect(json["message"] == "upstream failed")
        #expect(json["metadata"] == ["b": "2", "kind": "process"])
        let time = try #require(json["time"]?.stringValue)
        #expect(RFC3339.epochMicroseconds(parsing: time) != nil)
        #expect(time.hasSuffix("Z"))
        let gateway = LogRing(server: nil)
        gateway.append("server x added", event: "config")
        #expect(LogQuery.json(gateway.recent()[0])["server"] == .null)
    }
}
