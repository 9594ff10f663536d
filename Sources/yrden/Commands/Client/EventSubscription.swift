import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import YrdenProtocol

/// One event of `GET /api/v1/events`: its name (`server.state`, `auth.progress`, …) and its JSON data.
struct AdminEvent: Sendable {
    var name: String
    var data: JSONValue
}

/// An open `GET /api/v1/events` stream. Opened without `Last-Event-ID`, nothing is replayed, so a command opens
/// it before it reads the state it will then follow; the request is cancelled when the task reading it ends.
struct EventSubscription {
    private var body: HTTPClientResponse.Body.AsyncIterator
    /// The one SSE parser, which the upstream transports use too: every line ending SSE allows, and a bound, so
    /// a stream that never ends an event cannot fill the CLI's memory (the gateway's events are small).
    private var parser = SSEParser(maxEventBytes: 16 << 20)
    private var pending: [AdminEvent] = []

    fileprivate init(body: HTTPClientResponse.Body.AsyncIterator) {
        self.body = body
    }

    /// The next event; `nil` when the gateway closed the stream. An event whose data is not JSON is skipped.
    mutating func next() async throws(ClientFailure) -> AdminEvent? {
        while pending.isEmpty {
            let chunk: ByteBuffer?
            do {
                chunk = try await body.next(isolation: #isolation)
            } catch {
                if Task.isCancelled { return nil }
                throw ClientFailure("the gateway's event stream broke off (\(error))")
            }
            guard let chunk else { return nil }
            for event in parser.feed(chunk.readableBytesView) {
                if let data = try? JSONValue.parse(event.data) {
                    pending.append(AdminEvent(name: event.event ?? "message", data: data))
                }
            }
        }
        return pending.removeFirst()
    }
}

extension AdminClient {
    /// Opens the event stream. Throws a failure carrying the status when the gateway refuses it, so a caller
    /// can fall back to polling on a gateway without the stream.
    func subscribe() async throws(ClientFailure) -> EventSubscription {
        let request = makeRequest(.GET, "/api/v1/events", accept: "text/event-stream")
        let response = try await execute(request, deadline: .distantFuture)
        let status = Int(response.status.code)
        guard status == 200 else {
            let bytes = (try? await response.body.collect(upTo: 64 * 1024)).map { Array($0.readableBytesView) }
            throw ClientFailure.answer(status: status, body: bytes ?? [], from: endpoint)
        }
        return EventSubscription(body: response.body.makeAsyncIterator())
    }

    /// The event stream, or `nil` (so the caller polls) when the gateway refuses it for another reason than
    /// the token; an unreachable gateway is still a failure.
    func subscribeIfOffered() async throws(ClientFailure) -> EventSubscription? {
        do {
            return try await subscribe()
        } catch  where error.status == nil || error.status == 401 {
            throw error
        } catch {
            return nil
        }
    }
}
