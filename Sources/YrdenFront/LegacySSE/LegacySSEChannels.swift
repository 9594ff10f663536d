import Synchronization
import YrdenEngine
import YrdenLineIO

/// The legacy HTTP+SSE transport's open streams, by the id their `endpoint` event gave the client for its
/// POSTs: where each POSTed message is handed to the stream's connection.
///
/// Each stream belongs to the endpoint that opened it (`""`, `/mcp/{profile}` or `/servers/{id}`): a POST
/// reaches it only through that endpoint's own `messages` path, so it passes the same access rules as the
/// stream did (a profile's tokens are not the gateway's) and cannot feed another scope's stream.
///
/// Bounded three times: at most `limit` streams are open, at most `perClientLimit` of them one client's (so
/// one client cannot take them all from the others), and each holds at most `maxWaiting` messages its
/// connection has not taken yet; a POST past that is refused (429) rather than queued.
final class LegacySSEChannels: Sendable {
    static let maxWaiting = 64

    enum Delivery: Equatable {
        case accepted
        /// No open stream has that id (never opened, or closed).
        case unknown
        /// The stream's connection is `maxWaiting` messages behind.
        case full
    }

    private struct Table {
        var streams:
            [String: (base: String, feed: AsyncStream<TracedLine>.Continuation, client: ClientKey?, caller: Caller)] =
                [:]
        var perClient: [ClientKey: Int] = [:]
    }

    let limit: Int
    let perClientLimit: Int
    private let open = Mutex(Table())

    init(limit: Int, perClientLimit: Int = .max) {
        self.limit = limit
        self.perClientLimit = perClientLimit
    }

    var count: Int { open.withLock { $0.streams.count } }

    /// Whether `client` holds `perClientLimit` streams (why its stream was refused, when `limit` were not open).
    func isFull(for client: ClientKey?) -> Bool {
        guard let client else { return false }
        return open.withLock { $0.perClient[client, default: 0] >= perClientLimit }
    }

    /// A new stream's id and the messages POSTed to it through `base`'s messages path; `nil` when `limit`
    /// streams are open, or `client` holds `perClientLimit`.
    func openChannel(
        base: String,
        client: ClientKey? = nil,
        caller: Caller = .anonymous
    ) -> (id: String, messages: AsyncStream<TracedLine>)? {
        let (messages, feed) = AsyncStream.makeStream(
            of: TracedLine.self,
            bufferingPolicy: .bufferingOldest(Self.maxWaiting)
        )
        let id = Self.newID()
        let opened = open.withLock { open in
            guard open.streams.count < limit else { return false }
            if let client {
                guard open.perClient[client, default: 0] < perClientLimit else { return false }
                open.perClient[client, default: 0] += 1
            }
            open.streams[id] = (base, feed, client, caller)
            return true
        }
        return opened ? (id, messages) : nil
    }

    /// Hands one POSTed message, which arrived on `base`'s messages path, to stream `id`'s connection, with the
    /// POST's trace context headers; a stream another endpoint opened, or another principal than `caller`, is
    /// as unknown here as one never opened.
    func deliver(
        _ body: [UInt8],
        to id: String,
        base: String,
        caller: Caller = .anonymous,
        traceHeaders: TraceHeaders? = nil
    ) -> Delivery {
        guard
            let feed = open.withLock({ $0.streams[id] }).flatMap({
                $0.base == base && $0.caller.isSamePrincipal(as: caller) ? $0.feed : nil
            })
        else { return .unknown }
        switch feed.yield(TracedLine(input: .line(body), traceHeaders: traceHeaders)) {
        case .enqueued: return .accepted
        case .dropped: return .full
        default:
            close(id)  // its stream never ran, or has ended: forget it
            return .unknown
        }
    }

    /// Closes stream `id`: no more POSTs reach it, and its connection ends once it has taken what came.
    func close(_ id: String) {
        let stream = open.withLock { open in
            let stream = open.streams.removeValue(forKey: id)
            if let client = stream?.client {
                open.perClient[client, default: 1] -= 1
                if open.perClient[client] == 0 { open.perClient[client] = nil }
            }
            return stream
        }
        stream?.feed.finish()
    }

    /// 128 random bits in hex, as session ids are: unguessable, since the id is all a POST needs.
    private static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(generator.next() as UInt32, radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }
}
