import Testing
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol
import YrdenTesting

@testable import YrdenFront

/// A client of `GET /api/v1/events` that lost its connection reconnects with `Last-Event-ID` and gets what it
/// missed, then the live events, none twice and none left out; when the gateway no longer holds them, or never
/// sent that id, it is told so first, and a malformed id is refused.
@Suite struct AdminEventsResumeTests {
    private static func front() throws -> InProcessFront {
        try InProcessFront([
            "gateway": ["adminToken": .string(AdminAPITests.token)],
            "mcpServers": ["a": InProcessFront.entry, "b": InProcessFront.entry],
        ])
    }

    private static func stream(_ front: InProcessFront, after last: String? = nil) async throws -> AnswerStream {
        let headers = last.map { [("Last-Event-ID", $0)] } ?? []
        let answer = try #require(await front.admin("GET", "/api/v1/events", headers: headers))
        #expect(answer.status == 200)
        return try #require(answer.stream)
    }

    /// The events of `stream` up to and including the first `server.state` of `server` in `state`.
    private static func events(
        _ stream: AnswerStream,
        until server: String,
        is state: String
    ) async throws -> [SSEEvent] {
        var seen: [SSEEvent] = []
        while true {
            let event = try #require(await stream.next(), "no \(server):\(state) after \(seen.map(\.event))")
            seen.append(event)
            let data = try JSONValue.parse(event.data)
            if event.event == "server.state", data["server"]?["id"] == .string(server),
                data["server"]?["state"] == .string(state)
            {
                return seen
            }
        }
    }

    @Test func aClientThatReconnectsGetsExactlyTheEventsItMissedThenTheLiveOnes() async throws {
        let front = try Self.front()
        #expect(await front.connected("a", "b"))
        // What a client that never left sees, to compare with.
        let witness = try await Self.stream(front)
        let leaving = try await Self.stream(front)
        #expect(await front.admin("POST", "/api/v1/servers/a/disconnect")?.status == 202)
        let beforeLeaving = try await Self.events(leaving, until: "a", is: "disconnected")
        leaving.close()
        let lastSeen = try #require(beforeLeaving.last?.id)

        // While it is away: b is disconnected.
        #expect(await front.admin("POST", "/api/v1/servers/b/disconnect")?.status == 202)
        let all = try await Self.events(witness, until: "b", is: "disconnected")
        let missed = Array(all.drop { $0.id != lastSeen }.dropFirst())
        #expect(!missed.isEmpty)

        let resumed = try await Self.stream(front, after: lastSeen)
        let replayed = try await Self.events(resumed, until: "b", is: "disconnected")
        #expect(replayed == missed, "the missed events, in order, with their ids")

        // Then the live ones, continuing the numbering.
        #expect(await front.admin("POST", "/api/v1/servers/a/connect")?.status == 202)
        let live = try await Self.events(resumed, until: "a", is: "connected")
        let witnessed = try await Self.events(witness, until: "a", is: "connected")
        #expect(live == witnessed)
        let ids = (replayed + live).compactMap { $0.id.flatMap { UInt64($0) } }
        let first = try #require(UInt64(lastSeen))
        #expect(ids == Array(first + 1...first + UInt64(ids.count)), "no event twice, none left out")
        for stream in [witness, resumed] { stream.close() }
        await front.stop()
    }

    @Test func aClientWhoseLastIdTheGatewayNeverSentIsToldToReadTheStateAgain() async throws {
        let front = try Self.front()
        #expect(await front.connected("a", "b"))
        let resumed = try await Self.stream(front, after: "999999")
        let first = try #require(await resumed.next())
        #expect(first.event == "events.missed" && first.id == nil)
        #expect(try JSONValue.parse(first.data)["after"] == 999_999)
        #expect(await front.admin("POST", "/api/v1/servers/a/disconnect")?.status == 202)
        #expect(try await Self.events(resumed, until: "a", is: "disconnected").last?.id != nil, "then live events")
        resumed.close()

        let garbled = try #require(
            await front.admin("GET", "/api/v1/events", headers: [("Last-Event-ID", "forty-two")])
        )
        #expect(garbled.status == 400)
        #expect(garbled.json?["detail"]?.stringValue?.contains("Last-Event-ID") == true)
        await front.stop()
    }
}
