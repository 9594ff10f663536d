import Testing

@testable import YrdenConfig

/// `gateway.webSocketPingInterval` and `gateway.webSocketPongTimeout`: their defaults and the range enforced.
@Suite struct WebSocketKeepAliveKeysTests {
    @Test func defaultToFifteenSecondsEach() throws {
        let settings = try Config.decode("{}").gateway
        #expect(settings.webSocketPingInterval == .seconds(15) && settings.webSocketPongTimeout == .seconds(15))
    }

    @Test(arguments: [1, 60, 3599])
    func wholeSecondsInRangeAreRead(_ seconds: Int) throws {
        let settings = try Config.decode(
            #"{"gateway": {"webSocketPingInterval": \#(seconds), "webSocketPongTimeout": \#(seconds + 1)}}"#
        ).gateway
        #expect(settings.webSocketPingInterval == .seconds(seconds))
        #expect(settings.webSocketPongTimeout == .seconds(seconds + 1))
    }

    @Test(arguments: ["0", "-1", "3601", "2.5", #""15""#, "true"])
    func outOfRangeIsAProblemAtItsPath(_ value: String) {
        let problems = Config.problems(
            #"{"gateway": {"webSocketPingInterval": \#(value), "webSocketPongTimeout": \#(value)}}"#
        )
        #expect(problems.map(\.path) == ["gateway.webSocketPingInterval", "gateway.webSocketPongTimeout"])
    }
}
