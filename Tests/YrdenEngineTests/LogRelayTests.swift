import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// Upstreams' log messages go to the sessions that asked, at their level, naming the server; upstreams are
/// asked for the most verbose level any session wants.
@Suite struct LogRelayTests {
    private static func running() -> RunningGateway {
        let channels = FakeUpstreams()
        channels.change { $0.capabilities["logging"] = [:] }
        channels["a"].handle(MCPMethod.loggingSetLevel) { _ in .result([:]) }
        return RunningGateway([stdioSpec("a")], channels: channels)
    }

    @Test func levelsOrderBySeverityAndUnknownOnesAreRefused() throws {
        #expect(LoggingLevel.debug < .info && LoggingLevel.warning < .emergency)
        #expect(try LoggingLevel(validating: "notice") == .notice)
        #expect(throws: JSONRPCError.self) { try LoggingLevel(validating: "loud") }
        #expect(throws: JSONRPCError.self) { try LoggingLevel(validating: 3) }
    }

    @Test func aMessageNamesItsServerAndMeetsTheLevel() {
        let message = Gateway.logMessage(["level": "warning", "logger": "db", "data": "x"], from: "a", atLeast: .info)
        #expect(message?.params?["logger"] == "a/db")
        #expect(
            Gateway.logMessage(["level": "warning", "data": "x"], from: "a", atLeast: .info)?.params?["logger"] == "a"
        )
        #expect(Gateway.logMessage(["level": "debug", "data": "x"], from: "a", atLeast: .info) == nil)
        #expect(Gateway.logMessage(["level": "shouting", "data": "x"], from: "a", atLeast: .debug) == nil)
    }

    @Test func setLevelReachesTheUpstreamAndItsMessagesReachOnlySessionsThatAsked() async throws {
        let running = Self.running()
        #expect(await running.connected("a"))
        let asking = try await running.openSession()
        let quiet = try await running.openSession()
        let asked = asking.openNotificationStream()
        let silent = quiet.openNotificationStream()
        let set = await running.send(MCPMethod.loggingSetLevel, ["level": "info"], in: asking)
        #expect(set.result == [:])
        let forwarded = try #require(await running["a"].firstRequest(MCPMethod.loggingSetLevel))
        #expect(forwarded.params?["level"] == "info")

        #expect(running["a"].notify(MCPMethod.message, params: ["level": "debug", "data": "too quiet"]))
        #expect(running["a"].notify(MCPMethod.message, params: ["level": "error", "data": "loud"]))
        var iterator = asked.makeAsyncIterator()
        let first = await iterator.next()
        guard case .notification(let message)? = first else {
            Issue.record("no message reached the session that asked")
            return
        }
        #expect(message.params?["data"] == "loud")
        #expect(message.params?["logger"] == "a")
        quiet.deliver(.notification(JSONRPCNotification(method: "test/marker")))
        var other = silent.makeAsyncIterator()
        #expect((await other.next())?.method == "test/marker", "nothing came before the marker")
        await running.stop()
    }

    @Test func anUnknownLevelIsInvalidParams() async throws {
        let running = Self.running()
        #expect(await running.connected("a"))
        let session = try await running.openSession()
        let answer = await running.send(MCPMethod.loggingSetLevel, ["level": "loud"], in: session)
        #expect(answer.error?.code == -32602)
        #expect(session.logLevel == nil)
        await running.stop()
    }
}
