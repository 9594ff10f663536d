import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// A request to a Streamable HTTP endpoint, before it goes out through the origin's pool or AsyncHTTPClient.
struct UpstreamRequest: Sendable {
    var method: HTTPMethod
    var headers = HTTPHeaders()
    var body: [UInt8]?
}

/// An answer's head and its body, read as it comes, whichever way the request went.
struct UpstreamResponse: Sendable {
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var body: Body
    /// Set when the pool handed a whole JSON answer to the request's `onArrival` as it arrived: whether it
    /// answered the request. The body is then empty.
    var answeredOnArrival: Bool?

    init(status: HTTPResponseStatus, headers: HTTPHeaders, body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// An answer AsyncHTTPClient got (a legacy SSE endpoint's).
    init(_ response: HTTPClientResponse) {
        self.init(status: response.status, headers: response.headers, body: .client(response.body))
    }

    /// The body's pieces in order. A pooled body left unread before its end closes its connection when the last
    /// copy of it goes, as AsyncHTTPClient's does: the connection cannot carry another answer before this one's end.
    enum Body: AsyncSequence, Sendable {
        case client(HTTPClientResponse.Body)
        case pooled(PooledBody)

        typealias Element = ByteBuffer

        struct AsyncIterator: AsyncIteratorProtocol {
            fileprivate var client: HTTPClientResponse.Body.AsyncIterator?
            fileprivate var pooled: PooledBody?

            mutating func next() async throws -> ByteBuffer? {
                try await next(isolation: #isolation)
            }

            mutating func next(isolation actor: isolated (any Actor)?) async throws -> ByteBuffer? {
                if let pooled { return try await pooled.exchange.nextChunk() }
                guard var iterator = client else { return nil }
                defer { client = iterator }
                return try await iterator.next(isolation: actor)
            }
        }

        func makeAsyncIterator() -> AsyncIterator {
            switch self {
            case .client(let body): AsyncIterator(client: body.makeAsyncIterator(), pooled: nil)
            case .pooled(let body): AsyncIterator(client: nil, pooled: body)
            }
        }

        /// The whole body, or `NIOTooManyBytesError` past `maxBytes`.
        func collect(upTo maxBytes: Int) async throws -> ByteBuffer {
            if case .client(let body) = self { return try await body.collect(upTo: maxBytes) }
            var iterator = makeAsyncIterator()
            guard var whole = try await iterator.next() else { return ByteBuffer() }
            guard whole.readableBytes <= maxBytes else { throw NIOTooManyBytesError(maxBytes: maxBytes) }
            while var chunk = try await iterator.next() {
                guard whole.readableBytes + chunk.readableBytes <= maxBytes else {
                    throw NIOTooManyBytesError(maxBytes: maxBytes)
                }
                whole.writeBuffer(&chunk)
            }
            return whole
        }
    }
}

/// A pooled answer's body; when the last reference goes before the body's end, its connection is closed.
final class PooledBody: Sendable {
    let exchange: PooledExchange

    init(_ exchange: PooledExchange) {
        self.exchange = exchange
    }

    deinit { exchange.abandon() }
}
