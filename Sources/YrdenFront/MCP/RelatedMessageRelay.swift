import YrdenEngine
import YrdenProtocol

/// Carries one request's related messages (its progress) to the client while the request runs, then its
/// response, with a bound on what waits in between.
///
/// An upstream may report progress far faster than a client reads it. Only the newest `bound` messages wait;
/// older ones are dropped, which loses nothing a client needs because every progress notification supersedes
/// the one before it. The response is never dropped: it is written after the messages that waited.
enum RelatedMessageRelay {
    static let defaultBound = 256

    /// Runs `request` with a sink for its related messages, writing them with `write` as they come, then
    /// writes the response `request` returns.
    static func run(
        bound: Int = defaultBound,
        write: @escaping @Sendable (JSONRPCMessage) async -> Void,
        request: (@escaping RelatedMessageSink) async -> JSONRPCResponse
    ) async {
        let (related, continuation) = AsyncStream.makeStream(
            of: JSONRPCMessage.self,
            bufferingPolicy: .bufferingNewest(bound)
        )
        // Awaited below before returning; a task of its own so writing to the client never holds up the call.
        let relaying = Task {
            for await message in related { await write(message) }
        }
        let response = await request { continuation.yield($0) }
        continuation.finish()
        await relaying.value
        await write(.response(response))
    }
}
