import Testing
import YrdenProtocol

@testable import YrdenTransport

/// What the gateway keeps asking of a server is said in the server's era, and only what changed is asked.
@Suite struct StandingAsksTests {
    private static let updates: JSONObject = ["resources": ["subscribe": true, "listChanged": true]]

    /// Plays a handshake-era server for one request: records it as "method uri" and answers it, with an error
    /// for the URIs in `refusing`.
    private static func answer(
        _ message: JSONRPCMessage?,
        on channel: RecordingChannel,
        refusing: Set<String> = []
    ) -> String {
        guard case .request(let request) = message else { return "not a request: \(String(describing: message))" }
        let uri = request.params?["uri"]?.stringValue ?? ""
        let outcome: Result<JSONValue, JSONRPCError> =
            refusing.contains(uri) ? .failure(.invalidParams("no such resource \(uri)")) : .success([:])
        channel.receive(.response(JSONRPCResponse(id: request.id, outcome: outcome)))
        return "\(request.method) \(uri)"
    }

    @Test func aHandshakeEraServerIsSubscribedAndUnsubscribedOnlyForWhatChanged() async throws {
        let (client, channel) = try RecordingChannel.client(time: ManualTime())
        var sent = channel.sent.makeAsyncIterator()

        async let first = client.follow(["a", "b"], capabilities: Self.updates, timeout: .seconds(30))
        var firstAsked: Set<String> = []
        for _ in 0..<2 { firstAsked.insert(Self.answer(await sent.next(), on: channel, refusing: ["b"])) }
        let refused = await first
        #expect(firstAsked == ["resources/subscribe a", "resources/subscribe b"])
        #expect(Set(refused.keys) == ["b"])
        #expect(refused["b"]?.message.contains("no such resource b") == true)

        // "b" was refused, so it is not followed: asked again along with the new "c"; "a" is left alone.
        async let second = client.follow(["a", "b", "c"], capabilities: Self.updates, timeout: .seconds(30))
        var secondAsked: Set<String> = []
        for _ in 0..<2 { secondAsked.insert(Self.answer(await sent.next(), on: channel)) }
        #expect(await second.isEmpty)
        #expect(secondAsked == ["resources/subscribe b", "resources/subscribe c"])

        async let third = client.follow(["c"], capabilities: Self.updates, timeout: .seconds(30))
        var thirdAsked: Set<String> = []
        for _ in 0..<2 { thirdAsked.insert(Self.answer(await sent.next(), on: channel)) }
        #expect(await third.isEmpty)
        #expect(thirdAsked == ["resources/unsubscribe a", "resources/unsubscribe b"])
        await client.close()
    }

    @Test func aHandshakeEraServerIsToldTheLogLevelAndRootsButA2026ServerIsNot() async throws {
        let (client, channel) = try RecordingChannel.client(time: ManualTime())
        var sent = channel.sent.makeAsyncIterator()
        async let told: Void = client.setLogLevel(.debug, capabilities: ["logging": [:]], timeout: .seconds(30))
        let asked = Self.answer(await sent.next(), on: channel)
        await told
        #expect(asked == "logging/setLevel ")
        client.rootsChanged()
        guard case .notification(let notice) = await sent.next() else {
            Issue.record("no notification was sent")
            return
        }
        #expect(notice.method == MCPMethod.rootsListChanged)
        async let probed: Void = try client.probe(timeout: .seconds(30))
        guard case .request(let ping) = await sent.next() else {
            Issue.record("the probe was not sent")
            return
        }
        #expect(ping.method == MCPMethod.ping)
        channel.receive(.response(JSONRPCResponse(id: ping.id, outcome: .success([:]))))
        try await probed

        client.adopt(ModernStamp(capabilities: [:], clientInfo: ["name": "test"]))
        await client.setLogLevel(.debug, capabilities: ["logging": [:]], timeout: .seconds(30))
        client.rootsChanged()
        // Nothing was sent for either: the next frame is the marker sent after them.
        client.notify("test/marker")
        guard case .notification(let marker) = await sent.next() else {
            Issue.record("the marker was not sent")
            return
        }
        #expect(marker.method == "test/marker")
        await client.close()
    }

    @Test func a2026ServerGetsOneListenStreamOpenedAnewOnlyWhenWhatIsFollowedChanges() async throws {
        let (client, channel) = try RecordingChannel.client(time: ManualTime())
        client.adopt(ModernStamp(capabilities: [:], clientInfo: ["name": "test"]))
        var sent = channel.sent.makeAsyncIterator()

        #expect(await client.follow([], capabilities: Self.updates, timeout: .seconds(30)).isEmpty)
        guard case .request(let opened) = await sent.next() else {
            Issue.record("no listen stream was opened")
            return
        }
        #expect(opened.method == MCPMethod.subscriptionsListen)
        #expect(opened.params?["notifications"] == ["resourcesListChanged": true])

        _ = await client.follow([], capabilities: Self.updates, timeout: .seconds(30))  // unchanged: nothing sent
        client.notify("test/marker")
        guard case .notification(let marker) = await sent.next() else {
            Issue.record("the marker was not sent")
            return
        }
        #expect(marker.method == "test/marker")
        _ = await client.follow(["b", "a"], capabilities: Self.updates, timeout: .seconds(30))
        guard case .notification(let ended) = await sent.next(), case .request(let reopened) = await sent.next() else {
            Issue.record("the listen stream was not opened anew")
            return
        }
        #expect(ended.method == MCPMethod.cancelled)
        #expect(ended.params?["requestId"] == opened.id.json)
        #expect(reopened.method == MCPMethod.subscriptionsListen)
        #expect(
            reopened.params?["notifications"]
                == ["resourcesListChanged": true, "resourceSubscriptions": ["a", "b"]]
        )

        // Nothing left to follow: the stream ends, and no new one is opened.
        _ = await client.follow([], capabilities: [:], timeout: .seconds(30))
        client.notify("test/marker")
        guard case .notification(let last) = await sent.next(), case .notification(let marker) = await sent.next()
        else {
            Issue.record("the listen stream did not end")
            return
        }
        #expect(last.method == MCPMethod.cancelled)
        #expect(last.params?["requestId"] == reopened.id.json)
        #expect(marker.method == "test/marker")
        await client.close()
    }
}
