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
        let message = Dispatcher.logMessage(
            ["level": "warning", "logger": "db", "data": "x"],
            from: "a",
            atLeast: .info
        )
        #expect(message?.params?["logger"] == "a/db")
        #expect(
            Dispatcher.logMessage(["level": "warning", "data": "x"], from: "a", atLeast: .info)?.params?["logger"]
                == "a"
        )
        #expect(Dispatcher.logMessage(["level": "debug", "data": "x"], from: "a", atLeast: .info) == nil)
        #expect(Dispatcher.logMessage(["level": "shouting", "data": "x"], from: "a", atLeast: .debug) == nil)
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
        // Other notices (a list change as the catalog settles, say) may come first: only log messages count here.
        var iterator = asked.makeAsyncIterator()
        var first: JSONRPCMessage?
        repeat { first = await iterator.next() } while first != nil && first?.method != MCPMethod.message
        guard case .notification(let message)? = first else {
            Issue.record("no message reached the session that asked")
            return
        }
        #expect(message.params?["data"] == "loud")
        #expect(message.params?["logger"] == "a")
        quiet.deliver(.notification(JSONRPCNotification(method: "test/marker")))
        var other = silent.makeAsyncIterator()
        var beforeMarker: [String] = []
        while let next = await other.next(), next.method != "test/marker" { beforeMarker.append(next.method ?? "") }
        #expect(!beforeMarker.contains(MCPMethod.message), "no log message came before the marker")
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

/// A 2026-07-28 server logs only for requests that asked (`_meta.logLevel`), so over a pipe, where a message
/// does not say its request, it belongs to the one request in flight that asked, and to nobody when several did.
@Suite struct ModernPipeLogTests {
    private static func request(_ id: Int, level: String) -> JSONRPCRequest {
        var envelope = StatelessRequestTests.envelope
        envelope[ModernEnvelope.logLevelKey] = .string(level)
        return JSONRPCRequest(
            id: .int(id),
            method: MCPMethod.toolsCall,
            params: ["name": "a__echo", "arguments": [:], "_meta": .object(envelope)]
        )
    }

    /// A modern fake (or, with `modern` false, a handshake-era one) whose `echo` logs one line during the call.
    /// With `release`, the call logs once released and answers only when `calls` calls have logged, so every
    /// message is sent while all are in flight.
    private static func channels(release: Completion? = nil, calls: Int = 1, modern: Bool = true) -> FakeUpstreams {
        var script = FakeUpstreamScript()
        script.modern = modern
        script.capabilities["logging"] = [:]
        let channels = FakeUpstreams(script)
        let logged = Recording<Int>()
        channels["a"].handleTool("echo") { call in
            if let release { await release.wait() }
            _ = channels["a"].notify(MCPMethod.message, params: ["level": "warning", "data": "from the call"])
            logged.append(1)
            for _ in 0..<2000 where logged.elements.count < calls { try? await Task.sleep(for: .milliseconds(5)) }
            return .result(["content": []])
        }
        return channels
    }

    @Test func theOneRequestThatAskedGetsTheMessage() async throws {
        let running = RunningGateway([stdioSpec("a")], channels: Self.channels())
        #expect(await running.connected("a"))
        let related = Recording<JSONRPCMessage>()
        let response = await running.gateway.respondStateless(
            to: Self.request(1, level: "info"),
            related: { related.append($0) }
        )
        #expect((try? response.outcome.get()) != nil)
        let logged = related.elements.compactMap { message -> JSONRPCNotification? in
            if case .notification(let notification) = message, notification.method == MCPMethod.message {
                return notification
            }
            return nil
        }
        #expect(logged.map { $0.params?["data"] } == ["from the call"])
        #expect(logged.first?.params?["logger"] == "a")
        await running.stop()
    }

    /// A handshake-era server's pipe says no request either, and it logs whether or not a request asked: its
    /// message is the one asking request's, and still reaches sessions that set a level for the server.
    @Test func aHandshakeEraServersMessageGoesToTheOneRequestThatAskedAndToSessionsWithALevel() async throws {
        let channels = Self.channels(modern: false)
        channels["a"].handle(MCPMethod.loggingSetLevel) { _ in .result([:]) }
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.connected("a"))
        let following = try await running.openSession()
        let heard = following.openNotificationStream()
        #expect(await running.send(MCPMethod.loggingSetLevel, ["level": "info"], in: following).result == [:])
        let related = Recording<JSONRPCMessage>()
        let response = await running.gateway.respondStateless(
            to: Self.request(1, level: "info"),
            related: { related.append($0) }
        )
        #expect((try? response.outcome.get()) != nil)
        let logged = related.elements.compactMap { message -> JSONRPCNotification? in
            if case .notification(let notification) = message, notification.method == MCPMethod.message {
                return notification
            }
            return nil
        }
        #expect(logged.map { $0.params?["data"] } == ["from the call"])
        var iterator = heard.makeAsyncIterator()
        guard case .notification(let followed)? = await iterator.next() else {
            Issue.record("no message reached the session that set a level")
            return
        }
        #expect(followed.params?["data"] == "from the call")
        await running.stop()
    }

    @Test func whenTwoRequestsAskedNeitherGetsAMessageItCannotBeToldIsItsOwn() async throws {
        let release = Completion()
        let running = RunningGateway([stdioSpec("a")], channels: Self.channels(release: release, calls: 2))
        #expect(await running.connected("a"))
        let first = Recording<JSONRPCMessage>()
        let second = Recording<JSONRPCMessage>()
        async let one = running.gateway.respondStateless(
            to: Self.request(1, level: "info"),
            related: { first.append($0) }
        )
        async let two = running.gateway.respondStateless(
            to: Self.request(2, level: "info"),
            related: { second.append($0) }
        )
        for _ in 0..<1000 where running["a"].requests(MCPMethod.toolsCall).count < 2 {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(running["a"].requests(MCPMethod.toolsCall).count == 2)
        release.signal()
        _ = await (one, two)
        #expect(first.elements.isEmpty && second.elements.isEmpty)
        await running.stop()
    }
}
