import YrdenLineIO
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine
@testable import YrdenFront

/// A client of a ``MessageConnection`` (the stdio pipe's, or a legacy SSE stream's): lines in, messages out,
/// with the connection serving in a task of its own until the input ends.
struct LineClient {
    private let feed: AsyncStream<LineInput>.Continuation
    private let serving: Task<Void, Never>
    /// Everything the connection sent the client, as JSON, in order.
    let output = Recording<JSONValue>()

    init(gateway: Gateway, scope: CatalogScope = .gateway, slots: RequestSlots = RequestSlots()) {
        let (lines, feed) = AsyncStream.makeStream(of: LineInput.self)
        let output = self.output
        let connection = MessageConnection(gateway: gateway, scope: scope) { output.append($0.json) }
        self.feed = feed
        serving = Task { await connection.serve(lines, slots: slots) }
    }

    /// Sends one line holding `message`.
    func send(_ message: JSONValue) {
        feed.yield(.line(message.serialized()))
    }

    /// Sends one line as it is.
    func send(raw line: String) {
        feed.yield(.line(Array(line.utf8)))
    }

    /// What the line reader hands over for a line longer than it keeps.
    func sendOversized(bytes: Int) {
        feed.yield(.oversized(bytes: bytes))
    }

    /// The response to request `id`, sent already or within `limit`.
    func response(_ id: JSONValue, within limit: Duration = .seconds(10)) async -> JSONValue? {
        await output.first(within: limit) { $0["id"] == id && $0["method"] == nil }
    }

    /// The first notification `method` sent already or within `limit`.
    func notification(_ method: String, within limit: Duration = .seconds(10)) async -> JSONValue? {
        await output.first(within: limit) { $0["method"]?.stringValue == method && $0["id"] == nil }
    }

    /// Ends the input, as stdin closing does, and waits for the connection to finish serving; `false` if it
    /// did not within `limit`.
    func finish(within limit: Duration = .seconds(10)) async -> Bool {
        feed.finish()
        let serving = self.serving
        return await withDeadline(limit) { await serving.value } != nil
    }
}
