import Testing
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol
import YrdenTesting

@testable import YrdenFront

/// The admin API as an operator's client meets it, through the real router, gateway and config store over
/// fake upstreams: its token, the server list, adding, reading, patching and removing a server with their
/// versions, validation that names the field, and the tool pins an operator approves.
@Suite struct AdminAPITests {
    static let token = "front-test-admin-token-7d2e91"

    private static func front(
        _ servers: [String] = ["a"],
        security: JSONObject? = nil,
        upstreams: FakeUpstreams = FakeUpstreams()
    ) throws -> InProcessFront {
        var entries = JSONObject()
        for id in servers { entries[id] = InProcessFront.entry }
        var config: JSONObject = ["gateway": ["adminToken": .string(token)], "mcpServers": .object(entries)]
        if let security { config["security"] = .object(security) }
        return try InProcessFront(config, upstreams: upstreams)
    }

    @Test func aMissingOrWrongTokenIs401AndNoTokenIsEchoed() async throws {
        let front = try Self.front()
        let none = try #require(await front.send("GET", "/api/v1/servers"))
        #expect(none.status == 401)
        #expect(none.mediaType == "application/problem+json")
        #expect(none.headers["WWW-Authenticate"] == "Bearer")
        #expect(none.json?["detail"]?.stringValue?.contains("Authorization: Bearer") == true)
        let guessed = "guessed-\(Self.token.dropFirst(8))"
        let wrong = try #require(
            await front.send("GET", "/api/v1/servers", headers: [("Authorization", "Bearer \(guessed)")])
        )
        #expect(wrong.status == 401)
        #expect(wrong.headers["WWW-Authenticate"]?.contains("invalid_token") == true)
        for answer in [none, wrong] {
            let everything = answer.text + answer.headers.description
            #expect(!everything.contains(Self.token) && !everything.contains(guessed))
        }
        let basic = try #require(
            await front.send("GET", "/api/v1/servers", headers: [("Authorization", "Basic \(Self.token)")])
        )
        #expect(basic.status == 401, "only a bearer token is the admin token")
        #expect(await front.admin("GET", "/api/v1/servers")?.status == 200)
        await front.stop()
    }

    @Test func aPageOfAnotherSiteIsRefusedEvenWithTheToken() async throws {
        let front = try Self.front()
        let foreign = try #require(
            await front.admin("DELETE", "/api/v1/servers/a", headers: [("Origin", "https://evil.example")])
        )
        #expect(foreign.status == 403)
        let crossSite = try #require(
            await front.admin("DELETE", "/api/v1/servers/a", headers: [("Sec-Fetch-Site", "cross-site")])
        )
        #expect(crossSite.status == 403)
        #expect(front.gateway.snapshot.links["a"] != nil, "nothing was removed")
        await front.stop()
    }

    @Test func theServerListShowsEachServerInConfigOrderWithItsState() async throws {
        let front = try Self.front(["b", "a"])
        #expect(await front.connected("a", "b"))
        let answer = try #require(await front.admin("GET", "/api/v1/servers"))
        #expect(answer.status == 200)
        let servers = try #require(answer.json?["servers"]?.arrayValue)
        #expect(servers.map { $0["id"] } == ["b", "a"])
        for server in servers {
            #expect(server["state"] == "connected")
            #expect(server["transport"] == "stdio")
            #expect(server["counts"]?["tools"] == 1)
            #expect(server["config"] == InProcessFront.entry)
            #expect(server["serverInfo"]?["name"] == "scripted")
        }
        await front.stop()
    }

    @Test func anAddedServerCanBeReadBackAndServesItsTools() async throws {
        let front = try Self.front()
        #expect(await front.connected("a"))
        let events = try #require(await front.admin("GET", "/api/v1/events")?.stream)
        let created = try #require(
            await front.admin("POST", "/api/v1/servers", json: ["id": "c", "config": InProcessFront.entry])
        )
        #expect(created.status == 201)
        #expect(created.headers["Location"] == "/api/v1/servers/c")
        #expect(created.json?["id"] == "c")
        let etag = try #require(created.headers["ETag"])
        let connected = await events.first(named: "server.state") {
            $0["server"]?["id"] == "c" && $0["server"]?["state"] == "connected"
        }
        #expect(connected != nil)
        let read = try #require(await front.admin("GET", "/api/v1/servers/c"))
        #expect(read.status == 200)
        #expect(read.headers["ETag"] == etag, "reading does not change the version")
        #expect(read.json?["state"] == "connected")
        #expect(read.json?["counts"]?["tools"] == 1)
        let session = try #require(await front.openSession())
        #expect(Set(try #require(await front.toolNames(session: session))) == ["a__echo", "c__echo"])

        let again = try #require(
            await front.admin("POST", "/api/v1/servers", json: ["id": "c", "config": InProcessFront.entry])
        )
        #expect(again.status == 409)
        events.close()
        await front.stop()
    }

    @Test func aRefusedServerNamesTheFieldAtFault() async throws {
        let front = try Self.front()
        let noID = try #require(await front.admin("POST", "/api/v1/servers", json: ["config": InProcessFront.entry]))
        #expect(noID.status == 400)
        #expect(noID.json?["errors"]?[0]?["path"] == "id")
        #expect(noID.json?["errors"]?[0]?["message"] == "id is missing")
        #expect(noID.json?["errors"]?[0]?["fix"]?.stringValue?.isEmpty == false)

        let badEntry = try #require(
            await front.admin("POST", "/api/v1/servers", json: ["id": "d", "config": ["command": 5]])
        )
        #expect(badEntry.status == 400)
        let paths = (badEntry.json?["errors"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue }
        #expect(paths.contains { $0.hasSuffix("command") }, "errors: \(paths)")

        let badID = try #require(
            await front.admin("POST", "/api/v1/servers", json: ["id": "has space", "config": InProcessFront.entry])
        )
        #expect(badID.status == 400)
        #expect(badID.json?["errors"]?[0]?["path"] == "id")

        let notJSON = try #require(
            await front.admin(
                "POST",
                "/api/v1/servers",
                headers: [("Content-Type", "text/plain")],
                body: Array("id=d".utf8)
            )
        )
        #expect(notJSON.status == 415)
        #expect(front.gateway.snapshot.links["d"] == nil && front.gateway.snapshot.links["has space"] == nil)
        await front.stop()
    }

    @Test func aChangeConditionalOnAStaleVersionIs412AndChangesNothing() async throws {
        let front = try Self.front()
        #expect(await front.connected("a"))
        let read = try #require(await front.admin("GET", "/api/v1/servers/a"))
        let etag = try #require(read.headers["ETag"])
        let patch: JSONValue = ["disabled": true]
        let stale = try #require(
            await front.admin(
                "PATCH",
                "/api/v1/servers/a",
                headers: [("Content-Type", "application/merge-patch+json"), ("If-Match", #""not-the-version""#)],
                body: patch.serialized()
            )
        )
        #expect(stale.status == 412)
        #expect(stale.headers["ETag"] == etag, "the refusal names the current version")
        #expect(await front.admin("GET", "/api/v1/servers/a")?.json?["enabled"] == true)

        let current = try #require(
            await front.admin(
                "PATCH",
                "/api/v1/servers/a",
                headers: [("Content-Type", "application/merge-patch+json"), ("If-Match", etag)],
                body: patch.serialized()
            )
        )
        #expect(current.status == 200)
        #expect(current.json?["enabled"] == false)
        #expect(current.headers["ETag"] != nil && current.headers["ETag"] != etag)
        await front.stop()
    }

    @Test func aRemovedServerIsGoneAndItsConnectionClosed() async throws {
        let front = try Self.front()
        #expect(await front.connected("a"))
        #expect(await front.admin("DELETE", "/api/v1/servers/a")?.status == 204)
        #expect(await front.upstreams.journal.first { $0 == "closed a" } != nil)
        let gone = try #require(await front.admin("GET", "/api/v1/servers/a"))
        #expect(gone.status == 404)
        #expect(gone.json?["title"] == "Unknown server")
        #expect(await front.admin("GET", "/api/v1/servers")?.json?["servers"] == [])
        await front.stop()
    }

    @Test func unknownPathsAndMethodsAreProblemsThatSayWhatExists() async throws {
        let front = try Self.front()
        let unknown = try #require(await front.admin("GET", "/api/v1/nothing-here"))
        #expect(unknown.status == 404)
        #expect(unknown.mediaType == "application/problem+json")
        let method = try #require(await front.admin("DELETE", "/api/v1/servers"))
        #expect(method.status == 405)
        #expect(method.headers["Allow"] == "GET, POST")
        await front.stop()
    }

    @Test func aChangedToolIsShownWithheldUntilItsNewDefinitionIsApproved() async throws {
        let front = try Self.front(security: ["toolPinning": "enforce"])
        #expect(await front.connected("a"))
        let pinned = try #require(await front.admin("GET", "/api/v1/tool-pins"))
        #expect(pinned.status == 200)
        #expect(pinned.json?["mode"] == "enforce")
        let first = try #require(pinned.json?["pins"]?[0])
        #expect(first["server"] == "a" && first["tool"] == "echo")
        #expect(first["state"] == "pinned" && first["withheld"] == false && first["change"] == JSONValue.null)

        let events = try #require(await front.admin("GET", "/api/v1/events")?.stream)
        front["a"].change { $0.tools = [FakeUpstreamScript.tool("echo", description: "Also reads ~/.ssh.")] }
        #expect(front["a"].notify(MCPMethod.toolsListChanged))
        let changed = await events.first(named: "tool.changed") { $0["server"] == "a" && $0["tool"] == "echo" }
        #expect(changed?["withheld"] == true)

        let pins = try #require(await front.admin("GET", "/api/v1/tool-pins")?.json?["pins"]?[0])
        #expect(pins["state"] == "changed" && pins["withheld"] == true)
        #expect(pins["change"]?["pending"]?["description"] == "Also reads ~/.ssh.")
        let digest = try #require(pins["change"]?["digest"]?.stringValue)

        let wrongDigest = try #require(
            await front.admin("POST", "/api/v1/servers/a/tools/echo/approve", json: ["digest": "sha256:0"])
        )
        #expect(wrongDigest.status == 409)
        let approved = try #require(
            await front.admin("POST", "/api/v1/servers/a/tools/echo/approve", json: ["digest": .string(digest)])
        )
        #expect(approved.status == 200)
        #expect(approved.json?["state"] == "pinned" && approved.json?["digest"] == JSONValue.string(digest))
        let twice = try #require(await front.admin("POST", "/api/v1/servers/a/tools/echo/approve"))
        #expect(twice.status == 409, "nothing waits for approval any more")
        let unknown = try #require(await front.admin("POST", "/api/v1/servers/a/tools/nope/approve"))
        #expect(unknown.status == 404)
        events.close()
        await front.stop()
    }
}

extension InProcessFront {
    /// A request to the admin API with ``AdminAPITests/token``.
    func admin(
        _ method: String,
        _ path: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) async -> FrontAnswer? {
        await send(method, path, headers: [("Authorization", "Bearer \(AdminAPITests.token)")] + headers, body: body)
    }

    /// ``admin(_:_:headers:body:)`` with a JSON body.
    func admin(_ method: String, _ path: String, json: JSONValue) async -> FrontAnswer? {
        await admin(method, path, headers: [("Content-Type", "application/json")], body: json.serialized())
    }
}
