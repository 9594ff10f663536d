import Testing
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol
import YrdenTesting

@testable import YrdenFront

/// `/mcp` as a Streamable HTTP client meets it, through the real router and gateway over fake upstreams:
/// sessions, media types, parse errors, batches, routing of calls, progress and change announcements on
/// streams, and the 2026-07-28 stateless requests beside them.
@Suite struct MCPEndpointTests {
    private static func twoServers() throws -> InProcessFront {
        try InProcessFront(["mcpServers": ["a": InProcessFront.entry, "b": InProcessFront.entry]])
    }

    @Test func initializeOpensASessionNamedInItsHeader() async throws {
        let front = try InProcessFront()
        #expect(await front.connected("a"))
        let answer = try #require(await front.post(InProcessFront.initialize()))
        #expect(answer.status == 200)
        #expect(answer.mediaType == "application/json")
        #expect(answer.json?["id"] == 0)
        #expect(answer.result?["protocolVersion"] == "2025-06-18")
        #expect(answer.result?["capabilities"]?["tools"] != nil)
        let session = try #require(answer.sessionID)
        #expect(await front.toolNames(session: session) == ["a__echo"])
        let again = try #require(await front.post(InProcessFront.initialize()))
        #expect(again.sessionID != nil && again.sessionID != session, "each initialize opens a session of its own")
        await front.stop()
    }

    @Test func aBodyThatIsNotJSONIs415AndOpensNoSession() async throws {
        let front = try InProcessFront()
        let answer = try #require(
            await front.send(
                "POST",
                "/mcp",
                headers: [("Content-Type", "text/plain"), ("Accept", "application/json, text/event-stream")],
                json: InProcessFront.initialize()
            )
        )
        #expect(answer.status == 415)
        #expect(answer.rpcError?["code"] == -32600)
        #expect(answer.rpcError?["message"]?.stringValue?.contains("Content-Type must be application/json") == true)
        #expect(answer.sessionID == nil)
        #expect(front.gateway.sessions.count == 0)
        await front.stop()
    }

    @Test func aClientThatCannotTakeBothAnswerFormsIs406() async throws {
        let front = try InProcessFront()
        let post = try #require(
            await front.send(
                "POST",
                "/mcp",
                headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
                json: InProcessFront.initialize()
            )
        )
        #expect(post.status == 406)
        #expect(post.rpcError?["message"]?.stringValue?.contains("text/event-stream") == true)
        #expect(post.sessionID == nil)
        let session = try #require(await front.openSession())
        let get = try #require(
            await front.send("GET", "/mcp", headers: [("Accept", "application/json"), ("Mcp-Session-Id", session)])
        )
        #expect(get.status == 406)
        #expect(get.stream == nil)
        await front.stop()
    }

    @Test func aRequestWithoutItsSessionIs400AndWithAnUnknownOne404() async throws {
        let front = try InProcessFront()
        let missing = try #require(await front.post(InProcessFront.request(7, MCPMethod.toolsList)))
        #expect(missing.status == 400)
        #expect(missing.json?["id"] == 7)
        #expect(missing.rpcError?["message"]?.stringValue?.contains("Mcp-Session-Id") == true)
        let unknown = try #require(
            await front.post(InProcessFront.request(8, MCPMethod.toolsList), session: "no-such-session")
        )
        #expect(unknown.status == 404)
        #expect(unknown.rpcError?["code"] == -32001)
        await front.stop()
    }

    @Test func deleteEndsTheSession() async throws {
        let front = try InProcessFront()
        let session = try #require(await front.openSession())
        let deleted = try #require(await front.send("DELETE", "/mcp", headers: [("Mcp-Session-Id", session)]))
        #expect(deleted.status == 204)
        let after = try #require(await front.post(InProcessFront.request(1, MCPMethod.ping), session: session))
        #expect(after.status == 404)
        await front.stop()
    }

    @Test func malformedJSONIsAParseErrorWithANullID() async throws {
        let front = try InProcessFront()
        let answer = try #require(
            await front.send(
                "POST",
                "/mcp",
                headers: InProcessFront.postHeaders,
                body: Array(#"{"jsonrpc": "2.0", "id": 1, "method": "#.utf8)
            )
        )
        #expect(answer.status == 400)
        #expect(answer.rpcError?["code"] == -32700)
        #expect(answer.json?["id"] == .null)
        await front.stop()
    }

    @Test func aBatchIsAnsweredInOrderOnlyIn20250326() async throws {
        let front = try InProcessFront()
        #expect(await front.connected("a"))
        let batch: JSONValue = [
            InProcessFront.request(1, MCPMethod.ping),
            InProcessFront.notification(MCPMethod.initialized),
            InProcessFront.request(2, MCPMethod.toolsList),
            InProcessFront.request(3, "no/such/method"),
        ]
        let old = try #require(await front.openSession("2025-03-26"))
        let answer = try #require(await front.post(batch, session: old))
        #expect(answer.status == 200)
        let members = try #require(answer.json?.arrayValue)
        #expect(members.map { $0["id"] } == [1, 2, 3], "one answer per request, in order, none for the notification")
        #expect(members[0]["result"] == [:])
        #expect(members[1]["result"]?["tools"]?[0]?["name"] == "a__echo")
        #expect(members[2]["error"]?["code"] == -32601)

        let notifications: JSONValue = [InProcessFront.notification(MCPMethod.initialized)]
        #expect(await front.post(notifications, session: old)?.status == 202)

        let current = try #require(await front.openSession("2025-06-18"))
        let refused = try #require(await front.post(batch, session: current))
        #expect(refused.status == 400)
        #expect(refused.rpcError?["message"]?.stringValue?.contains("batches are not part of MCP 2025-06-18") == true)
        #expect(await front.post(batch)?.status == 400, "a batch without a session")
        await front.stop()
    }

    @Test func aToolCallGoesToTheServerThatListsItUnderItsOwnName() async throws {
        let front = try Self.twoServers()
        #expect(await front.connected("a", "b"))
        let session = try #require(await front.openSession())
        #expect(Set(try #require(await front.toolNames(session: session))) == ["a__echo", "b__echo"])
        let call = InProcessFront.request(5, MCPMethod.toolsCall, ["name": "b__echo", "arguments": ["x": 1]])
        let answer = try #require(await front.post(call, session: session))
        #expect(answer.status == 200)
        #expect(answer.json?["id"] == 5)
        #expect(answer.result?["structuredContent"]?["arguments"] == ["x": 1])
        let received = try #require(await front["b"].firstToolCall("echo"))
        #expect(received.params?["arguments"] == ["x": 1])
        #expect(front["a"].requests(MCPMethod.toolsCall).isEmpty)

        let unknown = InProcessFront.request(6, MCPMethod.toolsCall, ["name": "c__echo", "arguments": [:]])
        let refused = try #require(await front.post(unknown, session: session))
        #expect(refused.status == 200)
        #expect(refused.rpcError?["code"] == -32602)
        #expect(refused.rpcError?["message"]?.stringValue?.contains("c__echo") == true)
        await front.stop()
    }

    @Test func aCallAskingForProgressIsAnsweredOnAStreamThatEndsWithTheResponse() async throws {
        let front = try InProcessFront()
        front["a"].handleTool("echo") { call in
            call.progress(1, total: 2, message: "half")
            return .result(["content": [["type": "text", "text": "done"]]])
        }
        // A call made while its server is still connecting fails at once, by design: the start is not what
        // this test is about, and with the whole suite running it can take seconds.
        #expect(await front.connected("a"))
        let session = try #require(await front.openSession())
        let call = InProcessFront.request(
            9,
            MCPMethod.toolsCall,
            ["name": "a__echo", "arguments": [:], "_meta": ["progressToken": "p-1"]]
        )
        let answer = try #require(await front.post(call, session: session))
        #expect(answer.status == 200)
        #expect(answer.mediaType == "text/event-stream")
        let stream = try #require(answer.stream)
        let progress = try #require(await stream.nextJSON())
        #expect(progress["method"]?.stringValue == MCPMethod.progress)
        #expect(progress["params"]?["progressToken"] == "p-1", "the client's own token, not the gateway's")
        #expect(progress["params"]?["message"] == "half")
        let response = try #require(await stream.nextJSON())
        #expect(response["id"] == 9)
        #expect(response["result"]?["content"]?[0]?["text"] == "done")
        #expect(await stream.ended())
        await front.stop()
    }

    @Test func theSessionStreamCarriesAListChange() async throws {
        let front = try InProcessFront()
        #expect(await front.connected("a"))
        let session = try #require(await front.openSession())
        let opened = try #require(
            await front.send("GET", "/mcp", headers: [("Accept", "text/event-stream"), ("Mcp-Session-Id", session)])
        )
        #expect(opened.status == 200)
        #expect(opened.mediaType == "text/event-stream")
        let stream = try #require(opened.stream)

        front["a"].change { $0.tools.append(FakeUpstreamScript.tool("added")) }
        #expect(front["a"].notify(MCPMethod.toolsListChanged))
        let change = await stream.first { $0["method"]?.stringValue == MCPMethod.toolsListChanged }
        #expect(change != nil)
        #expect(Set(try #require(await front.toolNames(session: session))) == ["a__echo", "a__added"])
        stream.close()
        #expect(await stream.ended())
        await front.stop()
    }

    @Test func aStatelessCallIsServedWithoutASessionWhenItsHeadersAgreeWithItsBody() async throws {
        let front = try InProcessFront()
        #expect(await front.connected("a"))
        let envelope: JSONValue = [
            ModernEnvelope.versionKey: .string(ProtocolVersion.modern),
            ModernEnvelope.capabilitiesKey: [:],
            ModernEnvelope.clientInfoKey: ["name": "front-test", "version": "1"],
        ]
        let call = InProcessFront.request(
            3,
            MCPMethod.toolsCall,
            ["name": "a__echo", "arguments": ["y": "z"], "_meta": envelope]
        )
        let routing = [
            ("MCP-Protocol-Version", ProtocolVersion.modern), ("Mcp-Method", MCPMethod.toolsCall),
            ("Mcp-Name", "a__echo"),
        ]
        let answer = try #require(await front.post(call, headers: routing))
        #expect(answer.status == 200)
        #expect(answer.sessionID == nil, "the stateless era has no session")
        #expect(answer.result?["resultType"] == "complete")
        #expect(answer.result?["structuredContent"]?["arguments"] == ["y": "z"])
        let received = try #require(await front["a"].firstToolCall("echo"))
        #expect(received.params?["_meta"]?[ModernEnvelope.versionKey] == nil, "the envelope is one hop's")
        #expect(front.gateway.sessions.count == 0)

        let renamed = [
            ("MCP-Protocol-Version", ProtocolVersion.modern), ("Mcp-Method", MCPMethod.toolsCall),
            ("Mcp-Name", "a__other"),
        ]
        let mismatch = try #require(await front.post(call, headers: renamed))
        #expect(mismatch.status == 400)
        #expect(mismatch.rpcError?["code"] == -32020)
        #expect(mismatch.json?["id"] == 3)
        let unnamed = [("MCP-Protocol-Version", ProtocolVersion.modern), ("Mcp-Method", MCPMethod.toolsCall)]
        let missing = try #require(await front.post(call, headers: unnamed))
        #expect(missing.status == 400)
        #expect(missing.rpcError?["message"]?.stringValue?.contains("Mcp-Name is missing") == true)
        #expect(front["a"].requests(MCPMethod.toolsCall).count == 1, "refused calls never reach the server")

        let stream = try #require(
            await front.send(
                "GET",
                "/mcp",
                headers: [("Accept", "text/event-stream"), ("MCP-Protocol-Version", ProtocolVersion.modern)]
            )
        )
        #expect(stream.status == 405, "the stateless era has no standalone stream")
        #expect(stream.headers["Allow"] == "POST")
        await front.stop()
    }

    @Test func aListenStreamAcknowledgesThenCarriesOnlyTheKindsItAskedForStamped() async throws {
        let front = try InProcessFront()
        #expect(await front.connected("a"))
        let listen = InProcessFront.request(
            11,
            MCPMethod.subscriptionsListen,
            [
                "notifications": ["toolsListChanged": true],
                "_meta": [
                    ModernEnvelope.versionKey: .string(ProtocolVersion.modern), ModernEnvelope.capabilitiesKey: [:],
                ],
            ]
        )
        let routing = [("MCP-Protocol-Version", ProtocolVersion.modern), ("Mcp-Method", MCPMethod.subscriptionsListen)]
        let answer = try #require(await front.post(listen, headers: routing))
        #expect(answer.status == 200)
        #expect(answer.mediaType == "text/event-stream")
        let stream = try #require(answer.stream)
        let acknowledged = try #require(await stream.nextJSON())
        #expect(acknowledged["method"]?.stringValue == MCPMethod.subscriptionsAcknowledged)
        #expect(acknowledged["params"]?["notifications"] == ["toolsListChanged": true])

        front["a"].change {
            $0.prompts = [FakeUpstreamScript.prompt("p")]
            $0.tools.append(FakeUpstreamScript.tool("added"))
        }
        #expect(front["a"].notify(MCPMethod.promptsListChanged))
        #expect(front["a"].notify(MCPMethod.toolsListChanged))
        let change = try #require(await stream.nextJSON())
        #expect(change["method"]?.stringValue == MCPMethod.toolsListChanged, "prompts were not asked for")
        #expect(change["params"]?["_meta"]?[ModernEnvelope.subscriptionIDKey] == 11)
        stream.close()
        #expect(await stream.ended())
        await front.stop()
    }

    @Test func aForeignOriginOrHostIsRefused() async throws {
        let front = try InProcessFront()
        let origin = try #require(
            await front.post(InProcessFront.initialize(), headers: [("Origin", "https://evil.example")])
        )
        #expect(origin.status == 403)
        #expect(origin.sessionID == nil)
        let host = try #require(
            await front.send(
                "POST",
                "/mcp",
                headers: InProcessFront.postHeaders + [("Host", "rebound.example:8750")],
                json: InProcessFront.initialize()
            )
        )
        #expect(host.status == 403)
        #expect(host.rpcError?["message"]?.stringValue?.contains("rebound.example") == true)
        #expect(front.gateway.sessions.count == 0)
        await front.stop()
    }

    @Test func clientTokensGuardTheEndpointWithoutEchoingThem() async throws {
        let token = "front-test-client-token-4f1c9a"
        let front = try InProcessFront([
            "gateway": ["clientTokens": [.string(token)]], "mcpServers": ["a": InProcessFront.entry],
        ])
        let none = try #require(await front.post(InProcessFront.initialize()))
        #expect(none.status == 401)
        #expect(none.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
        let wrong = try #require(
            await front.post(InProcessFront.initialize(), headers: [("Authorization", "Bearer guessed-token")])
        )
        #expect(wrong.status == 401)
        #expect(!wrong.text.contains(token) && !wrong.text.contains("guessed-token"))
        let session = await front.openSession(headers: [("Authorization", "Bearer \(token)")])
        #expect(session != nil)
        await front.stop()
    }

    @Test func aServersOwnEndpointListsItsToolsUnderTheirOwnNames() async throws {
        let front = try Self.twoServers()
        #expect(await front.connected("a", "b"))
        let session = try #require(await front.openSession(path: "/servers/b/mcp"))
        #expect(await front.toolNames(session: session, path: "/servers/b/mcp") == ["echo"])
        let elsewhere = try #require(await front.post(InProcessFront.request(1, MCPMethod.ping), session: session))
        #expect(elsewhere.status == 404, "a session belongs to the endpoint it was opened on")
        let unknown = try #require(await front.post(InProcessFront.initialize(), path: "/servers/zz/mcp"))
        #expect(unknown.status == 404)
        #expect(unknown.rpcError?["message"]?.stringValue?.contains("zz") == true)
        await front.stop()
    }
}
