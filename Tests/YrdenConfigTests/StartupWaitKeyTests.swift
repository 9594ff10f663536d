import Testing

@testable import YrdenConfig

/// `gateway.startupWait`: its default, zero as "do not wait", and the range the validator enforces.
@Suite struct StartupWaitKeyTests {
    @Test func defaultsToFiveSeconds() throws {
        #expect(try Config.decode("{}").gateway.startupWait == .seconds(5))
    }

    @Test(arguments: [0, 1, 300])
    func wholeSecondsInRangeAreRead(_ seconds: Int) throws {
        let settings = try Config.decode(#"{"gateway": {"startupWait": \#(seconds)}}"#).gateway
        #expect(settings.startupWait == .seconds(seconds))
    }

    @Test(arguments: ["-1", "301", "9223372036854775807", "1e300", "2.5", #""5""#, "true"])
    func outOfRangeIsAProblemAtItsPath(_ value: String) {
        let problems = Config.problems(#"{"gateway": {"startupWait": \#(value)}}"#)
        #expect(problems.map(\.path) == ["gateway.startupWait"])
    }
}
