import Synchronization
import YrdenHTTPServer
import YrdenProtocol
import YrdenTesting
import YrdenTransport

/// A streamed answer (`HTTPResponse.Body.stream`) as a client reads it: the producing closure runs in a task
/// of its own, as the HTTP server runs it, writing into an ``HTTPBodyWriter`` whose bytes are parsed as
/// Server-Sent Events and kept in order; the test reads the next event, or waits for one that matches, with a
/// deadline. ``close()`` is the client leaving: the next write throws, and the task is cancelled.
final class AnswerStream: Sendable {
    private struct Reading {
        var parser = SSEParser()
        var closed = false
        var count = 0
        /// The number of the next event ``next(within:)`` returns.
        var cursor = 0
    }

    /// One parsed event and its place in the stream.
    struct Numbered: Sendable {
        let number: Int
        let event: SSEEvent
    }

    private let reading = Mutex(Reading())
    private let events = Recording<Numbered>()
    private let endings = Recording<Bool>()
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ produce: @escaping @Sendable (HTTPBodyWriter) async -> Void) {
        // Weak: a producer that never ends (a session's stream) must not keep its reader alive.
        let writer = HTTPBodyWriter { [weak self] bytes in
            guard let self else { throw HTTPServerError.streamClosed }
            try self.receive(bytes)
        }
        let endings = self.endings
        task.withLock {
            $0 = Task {
                await produce(writer)
                endings.append(true)
            }
        }
    }

    /// Parses one write; throws as a closed connection does once the client left.
    private func receive(_ bytes: [UInt8]) throws(HTTPServerError) {
        let parsed = try reading.withLock { reading throws(HTTPServerError) -> [Numbered] in
            guard !reading.closed else { throw .streamClosed }
            var numbered: [Numbered] = []
            reading.parser.feed(bytes) { event in
                numbered.append(Numbered(number: reading.count, event: event))
                reading.count += 1
            }
            return numbered
        }
        parsed.forEach(events.append)
    }

    deinit {
        task.withLock { $0?.cancel() }
    }

    /// Every event so far, in order.
    var received: [SSEEvent] { events.elements.map(\.event) }

    /// The event after the last one this returned, arrived already or within `limit`; `nil` if none came.
    func next(within limit: Duration = .seconds(10)) async -> SSEEvent? {
        let cursor = reading.withLock { $0.cursor }
        guard let found = await events.first(within: limit, where: { $0.number == cursor }) else { return nil }
        reading.withLock { $0.cursor = found.number + 1 }
        return found.event
    }

    /// The data, as JSON, of the first event since the last one ``next(within:)`` or this returned whose data
    /// `matches`; `nil` if none came within `limit`. Events skipped on the way are passed over.
    func first(
        within limit: Duration = .seconds(10),
        where matches: @escaping @Sendable (JSONValue) -> Bool
    ) async -> JSONValue? {
        await first(named: nil, within: limit, where: matches)
    }

    /// ``first(within:where:)`` among the events called `name` (`event: name`; `nil`: any event).
    func first(
        named name: String?,
        within limit: Duration = .seconds(10),
        where matches: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
    ) async -> JSONValue? {
        let cursor = reading.withLock { $0.cursor }
        let found = await events.first(within: limit) { numbered in
            guard numbered.number >= cursor, name == nil || numbered.event.event == name else { return false }
            return (try? JSONValue.parse(numbered.event.data)).map(matches) == true
        }
        guard let found else { return nil }
        reading.withLock { $0.cursor = max($0.cursor, found.number + 1) }
        return try? JSONValue.parse(found.event.data)
    }

    /// The next event's data as JSON (a JSON-RPC message on MCP streams); `nil` if none came within `limit`.
    func nextJSON(within limit: Duration = .seconds(10)) async -> JSONValue? {
        guard let event = await next(within: limit) else { return nil }
        return try? JSONValue.parse(event.data)
    }

    /// Whether the producer returned (the stream ended on the server's side) within `limit`.
    func ended(within limit: Duration = .seconds(10)) async -> Bool {
        await endings.first(within: limit) { $0 } != nil
    }

    /// The client leaves: every later write fails as on a closed connection, and the producer is cancelled.
    func close() {
        reading.withLock { $0.closed = true }
        task.withLock { $0?.cancel() }
    }
}
