import Glibc
import Testing
import YrdenConfig
import YrdenProtocol

@testable import YrdenEngine
@testable import YrdenTransport

/// The bus keeps at most 1,024 events and about 8 MiB of what they hold: a few large events push older ones
/// out long before the count would, whatever part of the event is large (a tool's definitions, a server's
/// handshake), so a server that reconnects with a megabyte of instructions cannot make the ring hold a gigabyte.
@Suite struct RecentEventsBoundTests {
    private static let mebibyte = 1 << 20

    /// Publishes `events` one at a time and returns how many of the newest ones a resumed stream still gets
    /// (the oldest held is found by resuming after each number in turn).
    private static func held(_ events: [GatewayEvent]) -> Int {
        let bus = EventBus()
        for event in events { bus.publish([event]) }
        let last = UInt64(events.count)
        let firstHeld = (0..<last).first { bus.subscribe(after: $0).complete } ?? last
        return Int(last - firstHeld)
    }

    /// A server's state event whose handshake carries `instructions` and `serverInfo` of its own.
    private static func connected(_ id: Int, instructions: String = "", serverInfo: JSONValue = [:]) -> GatewayEvent {
        let handshake = UpstreamHandshake(
            protocolVersion: "2025-11-25",
            capabilities: ["tools": [:]],
            serverInfo: serverInfo,
            instructions: instructions
        )
        let status = ServerStatus(
            spec: ServerSpec(id: "s", transport: .stdio(command: "x", args: [], env: [:], cwd: nil)),
            state: .connected(since: .now),
            counts: CatalogCounts(),
            handshake: handshake,
            lastHandshake: handshake,
            transportName: "stdio"
        )
        return .serverState(status)
    }

    /// A distinct string of about `bytes` (each event must hold its own copy, as a parsed frame does), filled
    /// by `memset`: a debug build appends a repeated character one at a time, seconds for the megabytes here.
    private static func text(_ index: Int, _ bytes: Int) -> String {
        let prefix = Array("\(index):".utf8)
        return String(unsafeUninitializedCapacity: prefix.count + bytes) { buffer in
            _ = buffer.initialize(from: prefix)
            memset(buffer.baseAddress! + prefix.count, Int32(UInt8(ascii: "x")), bytes)
            return prefix.count + bytes
        }
    }

    @Test func smallEventsAreBoundByTheirCount() {
        let events = (1...1_100).map { GatewayEvent.serverRemoved(id: "s\($0)") }
        #expect(Self.held(events) == RecentEvents.maxEvents)
    }

    /// One definition of 1 MiB in every event: each event's tools count, shared or not (digesting twelve
    /// distinct ones takes a debug build a minute, and counting a shared one again errs toward holding less).
    @Test func largeToolDefinitionsPushOlderEventsOutBeforeTheCountDoes() {
        let pinned = ToolDefinition(tool: ["name": "t", "description": "Reads a file."])
        let changed = ToolDefinition(tool: ["name": "t", "description": .string(Self.text(0, Self.mebibyte))])
        let events = (0..<12).map { _ in
            GatewayEvent.toolPin(
                ToolPinEvent(change: PinChange("s", .changed, from: pinned, to: changed), withheld: true)
            )
        }
        let held = Self.held(events)
        #expect(held >= 6 && held <= 8, "12 events of 1 MiB each: at most 8 MiB of them held, got \(held)")
    }

    @Test func largeHandshakesPushOlderEventsOutBeforeTheCountDoes() {
        let instructed = (0..<12).map { Self.connected($0, instructions: Self.text($0, Self.mebibyte)) }
        let heldInstructed = Self.held(instructed)
        #expect(heldInstructed >= 6 && heldInstructed <= 8, "1 MiB of instructions each, got \(heldInstructed)")

        let described = (0..<12).map { index in
            Self.connected(index, serverInfo: ["name": "s", "description": .string(Self.text(index, Self.mebibyte))])
        }
        let heldDescribed = Self.held(described)
        #expect(heldDescribed >= 6 && heldDescribed <= 8, "1 MiB of serverInfo each, got \(heldDescribed)")
    }

    @Test func aToolsOwnMetadataCountsToo() {
        let pinned = ToolDefinition(tool: ["name": "t", "description": "Reads a file."])
        let events = (0..<12).map { index in
            let listed: JSONObject = [
                "name": "t", "description": .string("Reads a file. \(index)"),
                "_meta": ["blob": .string(Self.text(index, Self.mebibyte))],
            ]
            let change = PinChange("s", .changed, from: pinned, to: ToolDefinition(tool: listed))
            return GatewayEvent.toolPin(ToolPinEvent(change: change, withheld: false))
        }
        let held = Self.held(events)
        #expect(held >= 6 && held <= 8, "a listed tool is held whole, its _meta too: got \(held)")
    }

    @Test func theNewestEventIsHeldHoweverLarge() {
        let huge = Self.connected(0, instructions: Self.text(0, 9 * Self.mebibyte))
        #expect(Self.held([Self.connected(1), huge]) == 1)
    }
}
