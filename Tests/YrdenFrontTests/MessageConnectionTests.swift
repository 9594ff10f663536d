import Testing
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol
import YrdenTesting

@testable import YrdenFront

/// One client over a channel of whole messages (`yrden stdio`, a legacy HTTP+SSE stream): the session it
/// opens, its requests and their bounds, cancellation, the stateless era, and what bad lines are answered.
@Suite struct MessageConnectionTests {
    @Test func aClientInitializesAndCallsATool() async throws {
        let front = try InProcessFront()
        #expect(await front.connected("a"))
        let client = LineClient(gateway: front.gateway)
        client.send(InProcessFront.initialize())
        let opened = try #require(await client.response(0))
        #expect(opened["result"]?["protocolVersion"] == "2025-06-18")
        client.send(InProcessFront.notification(MCPMethod.initialized))
        client.send(InProcessFront.request(1, MCPMethod.toolsCall, ["name": "a__echo", "arguments": ["k": "v"]]))
        let answer = try #require(await client.response(1))
        #expect(answer["result"]?["structuredContent"]?["arguments"] == ["k": "v"])
        #expect(await front["a"].firstToolCall("echo") != nil)
        #expect(await client.finish())
        await front.stop()
    }

    @Test func aRequestBeforeInitializeIsToldToInitialize() async throws {
        let front = try InProcessFront()
        let client = LineClient(gateway: front.gateway)
        client.send(InProcessFront.request(4, MCPMethod.toolsList))
        let answer = try #require(await client.response(4))
        #expect(answer["error"]?["code"] == -32600)
        #expect(answer["error"]?["message"]?.stringValue?.hasSuffix("send initialize first") == true)
        #expect(await client.finish())
        await front.stop()
    }

    @Test func badLinesAreAnsweredWithoutAnID() async throws {
        let front = try InProcessFront()
        let client = LineClient(gateway: front.gateway)
        client.send(raw: #"{"jsonrpc": "2.0", "id": 1, "#)
        let unparsed = try #require(await client.output.first { $0["error"]?["code"] == -32700 })
        #expect(unparsed["id"] == .null)
        client.sendOversized(bytes: 20 << 20)
        let oversized = try #require(
            await client.output.first { $0["error"]?["message"]?.stringValue?.contains("longer than") == true }
        )
        #expect(oversized["id"] == .null && oversized["error"]?["code"] == -32600)
        client.send([InProcessFront.request(2, MCPMethod.ping)])
        let batch = try #require(
            await client.output.first {
                $0["error"]?["message"]?.stringValue?.hasSuffix("batches are not served over stdio") == true
            }
        )
        #expect(batch["id"] == .null)
        client.send(InProcessFront.initialize())
        #expect(await client.response(0)?["result"] != nil, "the connection goes on after bad lines")
        #expect(await client.finish())
        await front.stop()
    }

    @Test func aListChangeReachesTheClientBetweenResponses() async throws {
        let front = try InProcessFront()
        #expect(await front.connected("a"))
        let client = LineClient(gateway: front.gateway)
        client.send(InProcessFront.initialize())
        #expect(await client.response(0) != nil)
        front["a"].change { $0.tools.append(FakeUpstreamScript.tool("added")) }
        #expect(front["a"].notify(MCPMethod.toolsListChanged))
        #expect(await client.notification(MCPMethod.toolsListChanged) != nil)
        #expect(await client.finish())
        await front.stop()
    }

    @Test func aCancelledCallIsNeverAnsweredAndItsServerIsTold() async throws {
        let front = try InProcessFront()
        front["a"].handleTool("echo") { _ in .never }
        #expect(await front.connected("a"))
        let client = LineClient(gateway: front.gateway)
        client.send(InProcessFront.initialize())
        #expect(await client.response(0) != nil)
        client.send(InProcessFront.request(2, MCPMethod.toolsCall, ["name": "a__echo", "arguments": [:]]))
        let forwarded = try #require(await front["a"].firstToolCall("echo"))
        client.send(InProcessFront.notification(MCPMethod.cancelled, ["requestId": 2, "reason": "changed my mind"]))
        let told = await front["a"].firstNotification(MCPMethod.cancelled) {
            $0.params?["requestId"] == forwarded.id.json
        }
        #expect(told != nil)
        // Once the input ends, every request task has finished: a response for 2 would be there by now.
        #expect(await client.finish())
        #expect(!client.output.elements.contains { $0["id"] == 2 })
        await front.stop()
    }

    @Test func aRequestPastTheSlotsIsRefusedAtOnce() async throws {
        let front = try InProcessFront()
        front["a"].handleTool("echo") { _ in .never }
        #expect(await front.connected("a"))
        let client = LineClient(gateway: front.gateway, slots: RequestSlots(limit: 1))
        client.send(InProcessFront.initialize())
        #expect(await client.response(0) != nil)
        client.send(InProcessFront.request(1, MCPMethod.toolsCall, ["name": "a__echo", "arguments": [:]]))
        #expect(await front["a"].firstToolCall("echo") != nil)
        client.send(InProcessFront.request(2, MCPMethod.toolsList))
        let busy = try #require(await client.response(2))
        #expect(busy["error"]?["code"] == -32000)
        #expect(busy["error"]?["message"]?.stringValue?.hasPrefix("too many requests in flight: at most 1") == true)
        client.send(InProcessFront.notification(MCPMethod.cancelled, ["requestId": 1]))
        #expect(await client.finish())
        await front.stop()
    }

    @Test func theEndOfInputEndsTheSession() async throws {
        let front = try InProcessFront()
        let client = LineClient(gateway: front.gateway)
        client.send(InProcessFront.initialize())
        #expect(await client.response(0) != nil)
        #expect(front.gateway.sessions.count == 1)
        #expect(await client.finish())
        #expect(front.gateway.sessions.count == 0)
        await front.stop()
    }

    @Test func aStatelessRequestNeedsNoInitialize() async throws {
        let front = try InProcessFront()
        #expect(await front.connected("a"))
        let client = LineClient(gateway: front.gateway)
        let envelope: JSONValue = [
            ModernEnvelope.versionKey: .string(ProtocolVersion.modern),
            ModernEnvelope.capabilitiesKey: [:],
        ]
        client.send(InProcessFront.request(6, MCPMethod.toolsList, ["_meta": envelope]))
        let answer = try #require(await client.response(6))
        #expect(answer["result"]?["resultType"] == "complete")
        #expect(answer["result"]?["tools"]?[0]?["name"] == "a__echo")
        #expect(front.gateway.sessions.count == 0)
        #expect(await client.finish())
        await front.stop()
    }
}

/// The legacy HTTP+SSE transport through the router: the same connection, its lines POSTed, its output
/// the stream's events.
@Suite struct LegacySSEFrontTests {
    @Test func aPostedRequestIsAnsweredOnTheStream() async throws {
        let front = try InProcessFront()
        #expect(await front.connected("a"))
        let opened = try #require(await front.send("GET", "/sse", headers: [("Accept", "text/event-stream")]))
        #expect(opened.status == 200)
        let stream = try #require(opened.stream)
        let endpoint = try #require(await stream.next())
        #expect(endpoint.event == "endpoint")
        let target = String(decoding: endpoint.data, as: UTF8.self)
        #expect(target.hasPrefix("/messages?sessionId="))
        let id = String(target.dropFirst("/messages?sessionId=".count))

        let headers = [("Content-Type", "application/json")]
        let posted = try #require(
            await front.send(
                "POST",
                "/messages",
                query: ["sessionId": id],
                headers: headers,
                body: InProcessFront.initialize().serialized()
            )
        )
        #expect(posted.status == 202)
        let initialized = try #require(await stream.first { $0["id"] == 0 })
        #expect(initialized["result"]?["protocolVersion"] == "2025-06-18")
        let call = InProcessFront.request(1, MCPMethod.toolsCall, ["name": "a__echo", "arguments": [:]])
        let accepted = try #require(
            await front.send("POST", "/messages", query: ["sessionId": id], headers: headers, body: call.serialized())
        )
        #expect(accepted.status == 202)
        #expect(await stream.first { $0["id"] == 1 }?["result"]?["content"] != nil)

        let stranger = try #require(
            await front.send(
                "POST",
                "/messages",
                query: ["sessionId": "not-a-stream"],
                headers: headers,
                body: call.serialized()
            )
        )
        #expect(stranger.status == 404)
        stream.close()
        #expect(await stream.ended())
        #expect(front.gateway.sessions.count == 0, "the session ends with its stream")
        await front.stop()
    }
}
