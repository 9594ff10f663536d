import Synchronization
import YrdenControl
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `GET /events`: the gateway's events as Server-Sent Events, until the client leaves or the gateway stops.
/// A client that reconnects with `Last-Event-ID` first gets the events it missed, while the gateway still holds
/// them (``EventBus/subscribe(after:)``); otherwise an `events.missed` event tells it to read the state again.
///
/// Streamed through `HTTPResponse.Body.stream` like the MCP endpoint's GET stream: the libmicrohttpd
/// connection sleeps between writes, and the task waits on the event bus, so an idle stream costs nothing.
extension AdminAPI {
    static let keepaliveInterval: Duration = .seconds(15)

    /// What an event's `id:` adds to its sequence number: the wall-clock microsecond at which this process first
    /// served the stream. Sequence numbers start at 1 in every process; with the base, ids rise across restarts
    /// too, so an id a client kept from before a restart is below every id of this process and is answered
    /// `events.missed` instead of being taken for one of this process's events.
    static let eventIDBase = UInt64(WallClock.now() * 1_000_000)

    func streamEvents(_ request: HTTPRequest) throws(AdminProblem) -> HTTPResponse {
        let (events, missed) = try subscription(resuming: request.headers["Last-Event-ID"])
        return HTTPResponse(
            status: 200,
            headers: SSE.headers,
            body: .stream { writer in
                let lastWrite = LastWrite()
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        if let missed {
                            do { try await writer.write(missed) } catch { return }
                        }
                        var entries: [String: JSONValue] = [:]
                        for await numbered in events {
                            guard let frame = await frame(for: numbered, entries: &entries) else { continue }
                            do { try await writer.write(frame) } catch { return }
                            lastWrite.touch()
                        }
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            let due = lastWrite.time + Self.keepaliveInterval
                            guard ContinuousClock.now >= due else {
                                try? await Task.sleep(until: due)
                                continue
                            }
                            do { try await writer.write(AdminEventFrame.keepalive) } catch { return }
                            lastWrite.touch()
                        }
                    }
                    await group.next()
                    group.cancelAll()
                }
            }
        )
    }

    /// The stream's events, subscribed before answering, so the client sees every event after its request was
    /// accepted, or after `lastEventID` (the last one it saw); with the `events.missed` frame to say first when
    /// the events after `lastEventID` are no longer all held.
    private func subscription(
        resuming lastEventID: String?
    ) throws(AdminProblem) -> (AsyncStream<SequencedEvent>, missed: [UInt8]?) {
        guard let lastEventID else { return (gateway.events.subscribe(), nil) }
        guard let last = UInt64(lastEventID.trimmingPrefix(while: { $0 == " " }), radix: 10) else {
            throw .badRequest("Last-Event-ID must be the id of an event this stream sent, a whole number")
        }
        guard last >= Self.eventIDBase else {
            return (gateway.events.subscribe(), AdminEventFrame.missed(after: last))
        }
        let (events, complete) = gateway.events.subscribe(after: last - Self.eventIDBase)
        return (events, complete ? nil : AdminEventFrame.missed(after: last))
    }

    /// The SSE frame for `numbered`, its `id` the event's sequence number (rising in the order the gateway
    /// applied its changes) past ``eventIDBase``. `entries` remembers each server's last entry, so the `stopped`
    /// state of a server being removed (already gone from the config) is still shown; a server never seen is
    /// skipped.
    private func frame(for numbered: SequencedEvent, entries: inout [String: JSONValue]) async -> [UInt8]? {
        let id = Self.eventIDBase + numbered.sequence
        switch numbered.event {
        case .serverAdded(let status), .serverState(let status):
            guard let entry = await store.redactedEntry(status.id) ?? entries[status.id] else { return nil }
            entries[status.id] = entry
            let view = ServerView(status: status, entry: entry)
            return AdminEventFrame.serverEvent(numbered.event, view: view, id: id)
        case .serverRemoved(let serverID):
            entries[serverID] = nil
            return AdminEventFrame.frame(event: "server.removed", data: ["id": .string(serverID)], id: id)
        case .serverCatalog(let status):
            let data: JSONValue = [
                "id": .string(status.id),
                "counts": ServerView.counts(
                    tools: status.counts.tools,
                    prompts: status.counts.prompts,
                    resources: status.counts.resources
                ),
            ]
            return AdminEventFrame.frame(event: "server.catalog", data: data, id: id)
        case .toolPin(let pinEvent):
            return AdminEventFrame.frame(event: pinEvent.name, data: ToolPinView.event(pinEvent), id: id)
        }
    }
}

/// The time of a stream's last write, shared by its event and keepalive tasks.
private final class LastWrite: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    var time: ContinuousClock.Instant { instant.withLock { $0 } }

    func touch() {
        instant.withLock { $0 = .now }
    }
}

/// Server-Sent Events framing for the admin event stream: one `event:` name, the event's sequence number as its
/// `id:`, and one `data:` line of JSON.
enum AdminEventFrame {
    /// Sent every 15 seconds while nothing else is: keeps proxies from timing out and finds departed clients.
    static let keepalive = Array(": keepalive\n\n".utf8)

    static func frame(event: String, data: JSONValue, id: UInt64? = nil) -> [UInt8] {
        var bytes = Array("event: \(event)\n".utf8)
        if let id { bytes.append(contentsOf: "id: \(id)\n".utf8) }
        bytes.append(contentsOf: "data: ".utf8)
        data.write(into: &bytes)
        bytes.append(contentsOf: "\n\n".utf8)
        return bytes
    }

    /// Said first to a client that resumed after `last` when the gateway no longer holds every event after it
    /// (more than 1,024 came since, or 8 MiB of what they hold) or never sent it (it restarted since): what
    /// the client knows may be stale, so it reads the state again, as a new client does. No `id`: the client's
    /// last id stays the one it had.
    static func missed(after last: UInt64) -> [UInt8] {
        frame(
            event: "events.missed",
            data: [
                "after": .int(Int(clamping: last)),
                "detail": .string(
                    "the events after id \(last) are no longer all held, or that id was never sent: "
                        + "read the current state (GET /api/v1/servers) and apply the events that follow"
                ),
            ]
        )
    }

    /// `server.added` or `server.state`, whose data is `{server}`.
    static func serverEvent(_ event: GatewayEvent, view: ServerView, id: UInt64? = nil) -> [UInt8]? {
        switch event {
        case .serverAdded: frame(event: "server.added", data: ["server": view.json], id: id)
        case .serverState: frame(event: "server.state", data: ["server": view.json], id: id)
        case .serverRemoved, .serverCatalog, .toolPin: nil
        }
    }
}
