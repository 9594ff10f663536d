import Testing
import YrdenProtocol

@testable import YrdenEngine

@Suite struct AggregatedCatalogTests {
    private func tool(_ name: String, meta: JSONValue? = nil) -> JSONObject {
        var object: JSONObject = [
            "name": .string(name), "inputSchema": ["type": "object"], "annotations": ["readOnlyHint": true],
        ]
        if let meta { object["_meta"] = meta }
        return object
    }

    private func source(
        _ server: String,
        tools: [String] = [],
        resources: [String] = [],
        templates: [String] = []
    ) -> CatalogSource {
        CatalogSource(
            server: server,
            prefix: server,
            catalog: ServerCatalog(
                tools: tools.map { tool($0) },
                prompts: [["name": "p", "arguments": [["name": "x", "required": true]]]],
                resources: resources.map { ["uri": .string($0), "name": .string($0)] },
                resourceTemplates: templates.map { ["uriTemplate": .string($0), "name": "t"] }
            )
        )
    }

    @Test func toolsArePrefixedAndRoutedByTable() {
        let catalog = AggregatedCatalog(
            sources: [source("time", tools: ["now"]), source("demo", tools: ["echo", "now"])],
            separator: "__"
        )
        let names = catalog.tools.compactMap { $0["name"]?.stringValue }
        #expect(names == ["time__now", "demo__echo", "demo__now"])
        #expect(catalog.routeTool("demo__now") == Route(server: "demo", name: "now"))
        #expect(catalog.routeTool("time__now") == Route(server: "time", name: "now"))
    }

    @Test func everythingButTheNamePassesThroughUntouched() {
        let meta: JSONValue = ["ui": ["resourceUri": "ui://demo/x"], "ui/resourceUri": "ui://demo/x"]
        let sources = [
            CatalogSource(server: "demo", prefix: "demo", catalog: ServerCatalog(tools: [tool("show", meta: meta)]))
        ]
        let exposed = AggregatedCatalog(sources: sources, separator: "__").tools[0]
        #expect(exposed["_meta"] == meta)
        #expect(exposed["annotations"] == ["readOnlyHint": true])
        #expect(exposed["name"] == "demo__show")
    }

    @Test func bareNamesRouteOnlyWhenUnique() {
        let catalog = AggregatedCatalog(
            sources: [source("a", tools: ["only", "shared"]), source("b", tools: ["shared"])],
            separator: "__"
        )
        #expect(catalog.routeTool("only") == Route(server: "a", name: "only"))
        #expect(catalog.routeTool("shared") == nil)
    }

    @Test func anAmbiguousBareNameListsTheExposedNamesInConfigOrder() {
        let catalog = AggregatedCatalog(
            sources: [source("b", tools: ["shared"]), source("a", tools: ["only", "shared"])],
            separator: "__"
        )
        #expect(catalog.bareToolCandidates("shared") == ["b__shared", "a__shared"])
        #expect(catalog.bareToolCandidates("only").isEmpty)
        #expect(catalog.bareToolCandidates("a__shared").isEmpty)
        #expect(catalog.bareToolCandidates("missing").isEmpty)
    }

    @Test func clashingNamesKeepTheFirstServerAndAreReported() {
        let first = CatalogSource(server: "one", prefix: "x", catalog: ServerCatalog(tools: [tool("t")]))
        let second = CatalogSource(server: "two", prefix: "x", catalog: ServerCatalog(tools: [tool("t")]))
        let catalog = AggregatedCatalog(sources: [first, second], separator: "__")
        #expect(catalog.tools.count == 1)
        #expect(catalog.routeTool("x__t")?.server == "one")
        #expect(catalog.conflicts.count == 1)
        #expect(catalog.conflicts[0].contains("two"))
    }

    @Test func resourceURIsStayVerbatimAndTheFirstOwnerWins() {
        let catalog = AggregatedCatalog(
            sources: [source("a", resources: ["file:///x", "demo://readme"]), source("b", resources: ["file:///x"])],
            separator: "__"
        )
        #expect(catalog.resources.compactMap { $0["uri"]?.stringValue } == ["file:///x", "demo://readme"])
        #expect(catalog.routeResource("file:///x") == "a")
        #expect(catalog.conflicts.contains { $0.contains("file:///x") })
    }

    @Test func unlistedURIsRouteByTemplateOrOrigin() {
        let catalog = AggregatedCatalog(
            sources: [
                source("demo", resources: ["ui://demo/dashboard"], templates: ["demo://greeting/{name}"]),
                source("other", resources: ["other://x"]),
            ],
            separator: "__"
        )
        #expect(catalog.routeResource("demo://greeting/Ada") == "demo")
        #expect(catalog.routeResource("ui://demo/another-page") == "demo")
        #expect(catalog.routeResource("nowhere://x") == nil)
    }

    @Test func toolFiltersApply() {
        let filtered = CatalogSource(
            server: "a",
            prefix: "a",
            permitsTool: { $0 != "secret" },
            catalog: ServerCatalog(tools: [tool("ok"), tool("secret")])
        )
        let catalog = AggregatedCatalog(sources: [filtered], separator: "__")
        #expect(catalog.tools.count == 1)
        #expect(catalog.routeTool("a__secret") == nil)
        #expect(catalog.routeTool("secret") == nil)
    }

    @Test func templatesMatchSegmentsAndReservedExpansions() {
        #expect(URITemplate("demo://greeting/{name}").matches("demo://greeting/Ada"))
        #expect(!URITemplate("demo://greeting/{name}").matches("demo://greeting/a/b"))
        #expect(!URITemplate("demo://greeting/{name}").matches("demo://greeting/"))
        #expect(URITemplate("file:///{+path}").matches("file:///a/b/c.txt"))
        #expect(URITemplate("db://{table}/rows/{id}").matches("db://users/rows/7"))
    }
}

@Suite struct PaginationAndBackoffTests {
    @Test func pagesFollowCursorsAndRefuseStaleOnes() throws {
        let items = (0..<1200).map { JSONValue.int($0) }
        let first = try Pagination.page(items, key: "tools", cursor: nil, generation: 3)
        #expect(first["tools"]?.arrayValue?.count == Pagination.pageSize)
        let cursor = try #require(first["nextCursor"])
        let second = try Pagination.page(items, key: "tools", cursor: cursor, generation: 3)
        #expect(second["tools"]?.arrayValue?.first == .int(Pagination.pageSize))
        #expect(throws: JSONRPCError.self) { try Pagination.page(items, key: "tools", cursor: cursor, generation: 4) }
        #expect(throws: JSONRPCError.self) {
            try Pagination.page(items, key: "tools", cursor: "garbage", generation: 3)
        }
        #expect(second["nextCursor"] != nil)
        let last = try Pagination.page(items, key: "tools", cursor: second["nextCursor"], generation: 3)
        #expect(last["nextCursor"] == nil)
        #expect(last["tools"]?.arrayValue?.count == 200)
    }

    @Test func backoffDoublesToTheCapWithJitterAndRespectsAttempts() {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(60), maxAttempts: 10)
        #expect(backoff.delay(forAttempt: 1, jitter: 0) == .seconds(1))
        #expect(backoff.delay(forAttempt: 2, jitter: 0) == .seconds(2))
        #expect(backoff.delay(forAttempt: 7, jitter: 0) == .seconds(60))
        #expect(backoff.delay(forAttempt: 3, jitter: 0.2) == .milliseconds(4800))
        #expect(backoff.delay(forAttempt: 11, jitter: 0) == nil)
        #expect(Backoff().delay(forAttempt: 1000, jitter: 0) == .seconds(60))
    }
}
