import Synchronization
import YrdenLineIO

/// The legacy HTTP+SSE transport's open streams, by the id their `endpoint` event gave the client for its
/// POSTs: where each POSTed message is handed to the stream's connection.
///
/// Each stream belongs to the endpoint that opened it (`""`, `/mcp/{profile}` or `/servers/{id}`): a POST
/// reaches it only through that endpoint's own `messages` path, so it passes the same access rules as the
/// stream did (a profile's tokens are not the gateway's) and cannot feed another scope's stream.
///
/// Bounded twice: at most `limit` streams are open, and each holds at most `maxWaiting` messages its
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

    let limit: Int
    private let open = Mutex<[String: (base: String, feed: AsyncStream<LineInput>.Continuation)]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    var count: Int { open.withLock { $0.count } }

    /// A new stream's id and the messages POSTed to it through `base`'s messages path; `nil` when `limit`
    /// streams are open.
    func openChannel(base: String) -> (id: String, messages: AsyncStream<LineInput>)? {
        let (messages, feed) = AsyncStream.makeStream(
            of: LineInput.self,
            bufferingPolicy: .bufferingOldest(Self.maxWaiting)
        )
        let id = Self.newID()
        let opened = open.withLock { open in
            guard open.count < limit else { return false }
            open[id] = (base, feed)
            return true
        }
        return opened ? (id, messages) : nil
    }

    /// Hands one POSTed message, which arrived on `base`'s messages path, to stream `id`'s connection; a
    /// stream another endpoint opened is as unknown here as one never opened.
    func deliver(_ body: [UInt8], to id: String, base: String) -> Delivery {
        guard let feed = open.withLock({ $0[id] }).flatMap({ $0.base == base ? $0.feed : nil }) else {
            return .unknown
        }
        switch feed.yield(.line(body)) {
        case .enqueued: return .accepted
        case .dropped: return .full
        default:
            close(id)  // its stream never ran, or has ended: forget it
            return .unknown
        }
    }

    /// Closes stream `id`: no more POSTs reach it, and its connection ends once it has taken what came.
    func close(_ id: String) {
        open.withLock { $0.removeValue(forKey: id) }?.feed.finish()
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
