import Testing

@testable import YrdenConfig

/// `gateway.maxSessions` and `gateway.sessionIdleTimeout`: their defaults, and the ranges the validator enforces.
@Suite struct SessionBoundKeysTests {
    @Test func defaultsBoundSessionsWithoutAnyKey() throws {
        let settings = try Config.decode("{}").gateway
        #expect(settings.maxSessions == 10_000)
        #expect(settings.sessionIdleTimeout == .seconds(900))
    }

    @Test func bothKeysAreRead() throws {
        let settings = try Config.decode(#"{"gateway": {"maxSessions": 50, "sessionIdleTimeout": 60}}"#).gateway
        #expect(settings.maxSessions == 50)
        #expect(settings.sessionIdleTimeout == .seconds(60))
    }

    @Test(arguments: ["0", "-1", "1000001", "9223372036854775807", "1.5", #""100""#])
    func maxSessionsOutOfRangeIsAProblemAtItsPath(_ value: String) {
        let problems = Config.problems(#"{"gateway": {"maxSessions": \#(value)}}"#)
        #expect(problems.map(\.path) == ["gateway.maxSessions"])
    }

    @Test(arguments: ["0", "-5", "604801", "1e300", "0.5", "true"])
    func sessionIdleTimeoutOutOfRangeIsAProblemAtItsPath(_ value: String) {
        let problems = Config.problems(#"{"gateway": {"sessionIdleTimeout": \#(value)}}"#)
        #expect(problems.map(\.path) == ["gateway.sessionIdleTimeout"])
    }

    @Test func maxSessionsPerClientDefaultsTo256AndIsRead() throws {
        #expect(try Config.decode("{}").gateway.maxSessionsPerClient == 256)
        let settings = try Config.decode(#"{"gateway": {"maxSessionsPerClient": 8}}"#).gateway
        #expect(settings.maxSessionsPerClient == 8)
    }

    @Test(arguments: ["0", "-1", "1000001", "2.5", #""8""#])
    func maxSessionsPerClientOutOfRangeIsAProblemAtItsPath(_ value: String) {
        let problems = Config.problems(#"{"gateway": {"maxSessionsPerClient": \#(value)}}"#)
        #expect(problems.map(\.path) == ["gateway.maxSessionsPerClient"])
    }

    @Test func aMisspelledKeyIsPointedAtTheRealOne() throws {
        let problem = try #require(Config.problems(#"{"gateway": {"maxSession": 5}}"#).first)
        #expect(problem.fix.contains(#""maxSessions""#))
    }
}
