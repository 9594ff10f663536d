import Testing
import YrdenConfig
import YrdenProtocol

@testable import YrdenEngine
@testable import YrdenFront
@testable import YrdenTransport

@Suite struct ServerViewTests {
    private let entry: JSONValue = ["command": "python3", "env": ["TOKEN": "********"]]

    private func view(_ state: ConnectionState) -> JSONValue {
        ServerView(id: "time", transport: "stdio", enabled: true, state: state, entry: entry).json
    }

    @Test func everyKeyOfTheSchemaIsPresent() throws {
        let object = try #require(view(.idle).objectValue)
        let keys = Set(object.map(\.key))
        #expect(
            keys == [
                "id", "transport", "enabled", "state", "auth", "lastError", "reconnect", "connectedSince", "counts",
                "protocolVersion", "serverInfo", "era", "config",
            ]
        )
        #expect(object["state"] == "idle")
        #expect(object["auth"] == .null)
        #expect(object["config"] == entry)
        #expect(object["counts"] == ["tools": 0, "prompts": 0, "resources": 0])
        #expect(object["protocolVersion"] == .null)
        #expect(object["serverInfo"] == .null)
        #expect(object["era"] == .null)
    }

    @Test func aConnectedServerSaysSinceWhen() throws {
        let json = view(.connected(since: .now - .seconds(90)))
        #expect(json["state"] == "connected")
        let since = try #require(json["connectedSince"]?.stringValue)
        let micros = try #require(RFC3339.epochMicroseconds(parsing: since))
        let expected = (WallClock.now() - 90) * 1_000_000
        #expect(abs(Double(micros) - expected) < 2_000_000)
        #expect(json["reconnect"] == .null)
        #expect(json["lastError"] == .null)
    }

    @Test func aFailedServerShowsItsErrorAndItsNextRetry() throws {
        let error = UpstreamError(.http, "https://example.com/mcp answered 503", httpStatus: 503)
        let json = view(.failed(error, attempt: 2, retryAt: .now + .seconds(4)))
        #expect(json["state"] == "failed")
        #expect(
            json["lastError"] == ["kind": "http", "message": "https://example.com/mcp answered 503", "httpStatus": 503]
        )
        #expect(json["reconnect"]?["attempt"] == 2)
        let retryAt = try #require(json["reconnect"]?["nextRetryAt"]?.stringValue)
        let micros = try #require(RFC3339.epochMicroseconds(parsing: retryAt))
        #expect(abs(Double(micros) - (WallClock.now() + 4) * 1_000_000) < 2_000_000)
        #expect(json["connectedSince"] == .null)
    }

    @Test func aServerThatGaveUpHasNoReconnect() {
        let json = view(.failed(UpstreamError(.process, "exited with status 1"), attempt: 3, retryAt: nil))
        #expect(json["reconnect"] == .null)
        #expect(json["lastError"] == ["kind": "process", "message": "exited with status 1"])
    }

    @Test func retriesAreCountedFromTheFirstFailure() {
        #expect(view(.connecting(attempt: 1))["reconnect"] == .null)
        #expect(view(.connecting(attempt: 3))["reconnect"] == ["attempt": 2, "nextRetryAt": .null])
    }

    @Test func statesHaveTheirContractNames() {
        #expect(view(.disconnected)["state"] == "disconnected")
        #expect(view(.disabled)["state"] == "disabled")
        #expect(view(.stopped)["state"] == "stopped")
    }

    @Test func serverInfoIsShownOnlyWhenItIsAnObject() {
        var server = ServerView(id: "a", transport: "http", enabled: false, state: .disabled, entry: entry)
        server.protocolVersion = "2025-06-18"
        server.serverInfo = ["name": "mcp-time", "version": "1.9.4"]
        #expect(server.json["serverInfo"] == ["name": "mcp-time", "version": "1.9.4"])
        #expect(server.json["protocolVersion"] == "2025-06-18")
        #expect(server.json["enabled"] == false)
        server.serverInfo = "odd"
        #expect(server.json["serverInfo"] == .null)
    }

    @Test func theStatusGivesTheLastHandshakeEraAndTheFailureWithItsTime() throws {
        let refused = UpstreamError(.network, "connection refused")
        let status = ServerStatus(
            spec: ServerSpec(id: "a", transport: .stdio(command: "x", args: [], env: [:], cwd: nil)),
            state: .connecting(attempt: 2),
            counts: CatalogCounts(),
            lastHandshake: UpstreamHandshake(
                protocolVersion: "2025-11-25",
                capabilities: [:],
                serverInfo: ["name": "a", "version": "1"],
                instructions: nil
            ),
            lastFailure: UpstreamFailure(refused, at: 1_780_000_000.5),
            transportName: "stdio"
        )
        let json = ServerView(status: status, entry: entry).json
        #expect(json["protocolVersion"] == "2025-11-25")
        #expect(json["serverInfo"] == ["name": "a", "version": "1"])
        #expect(json["era"] == "handshake")
        #expect(json["lastError"]?["kind"] == "network", "kept while the next attempt runs")
        let at = try #require(json["lastError"]?["at"]?.stringValue)
        #expect(RFC3339.epochMicroseconds(parsing: at) == 1_780_000_000_500_000)
    }

    @Test func eventsAreFramedAsOneEventLineAndOneDataLine() {
        let frame = AdminEventFrame.frame(event: "server.removed", data: ["id": "time"])
        #expect(String(decoding: frame, as: UTF8.self) == "event: server.removed\ndata: {\"id\":\"time\"}\n\n")
        #expect(String(decoding: AdminEventFrame.keepalive, as: UTF8.self) == ": keepalive\n\n")
    }
}
