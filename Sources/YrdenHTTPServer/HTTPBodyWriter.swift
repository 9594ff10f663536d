/// Writes the body of a streamed response (`HTTPResponse.Body.stream`), for example Server-Sent Events.
///
/// Each `write` sends its bytes as they are (one HTTP chunk per write, or more when large); frame events yourself.
///
/// - Important: While a stream is idle its connection sleeps, and a client that left is only noticed when a write
///   fails. Write something periodically (an SSE comment line such as `": ping\n\n"`) so departed clients are
///   found and their tasks cancelled.
package struct HTTPBodyWriter: Sendable {
    private enum Destination: Sendable {
        case exchange(Exchange)
        case sink(@Sendable ([UInt8]) async throws -> Void)
    }

    private let destination: Destination

    init(exchange: Exchange) {
        destination = .exchange(exchange)
    }

    /// A writer that hands every write to `sink`, for code that builds streamed responses and wants to test them
    /// without a socket. A throwing sink behaves like a departed client.
    package init(sink: @escaping @Sendable ([UInt8]) async throws -> Void) {
        destination = .sink(sink)
    }

    /// Queues bytes for the client and returns once they are queued. If more than about 1 MiB is queued and
    /// unsent (a slow client), waits until the client has caught up.
    ///
    /// - Throws: `HTTPServerError.streamClosed` once the client has gone away or the server is shutting down;
    ///   `CancellationError` if the task is cancelled while waiting for the client to catch up.
    package func write(_ bytes: [UInt8]) async throws {
        switch destination {
        case .exchange(let exchange): try await exchange.write(bytes)
        case .sink(let sink): try await sink(bytes)
        }
    }

    /// Bytes to send last if the server stops the stream (graceful shutdown): the end the protocol can say,
    /// such as a final event, which a client then reads as an orderly end rather than a dropped connection.
    /// Replaces earlier closing words; not sent when the stream ends any other way.
    package func setClosingWords(_ bytes: [UInt8]) {
        if case .exchange(let exchange) = destination { exchange.setClosingWords(bytes) }
    }

    /// Writes the UTF-8 bytes of `text`.
    package func write(_ text: String) async throws {
        try await write(Array(text.utf8))
    }
}
