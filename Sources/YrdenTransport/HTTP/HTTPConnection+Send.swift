import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension HTTPConnection {
    /// Sends `request` to the endpoint and returns once the answer's head is in (a JSON answer's body with it,
    /// usually). Through the origin's pool when `pooled` and the channel has one: head and body in one write,
    /// on a kept-alive connection. Otherwise (long-lived streams, a URL the pool does not take) through
    /// AsyncHTTPClient. Errors are ``UpstreamError``s from the pool, AsyncHTTPClient's from the client.
    /// `onArrival`, pooled only, takes a whole 2xx JSON answer on the connection's event loop (see
    /// ``PooledExchange``); the response then says what it returned.
    func execute(
        _ request: UpstreamRequest,
        deadline: NIODeadline,
        pooled: Bool = true,
        onArrival: (@Sendable ([UInt8]) -> Bool)? = nil
    ) async throws -> UpstreamResponse {
        if pooled, let route {
            return try await Self.execute(
                request,
                on: route.pool,
                target: route.requestTarget,
                deadline: deadline,
                onArrival: onArrival
            )
        }
        var outgoing = HTTPClientRequest(url: endpoint.url)
        outgoing.method = request.method
        outgoing.headers = request.headers
        if let body = request.body { outgoing.body = .bytes(body) }
        let response = try await client.execute(outgoing, deadline: deadline)
        return UpstreamResponse(response)
    }

    private static func execute(
        _ request: UpstreamRequest,
        on pool: UpstreamHTTPPool,
        target: String,
        deadline: NIODeadline,
        onArrival: (@Sendable ([UInt8]) -> Bool)?
    ) async throws -> UpstreamResponse {
        var headers = request.headers
        headers.replaceOrAdd(name: "Host", value: pool.origin.hostHeader)
        var body: ByteBuffer?
        if let bytes = request.body {
            headers.replaceOrAdd(name: "Content-Length", value: String(bytes.count))
            body = ByteBuffer(bytes: bytes)
        }
        let head = HTTPRequestHead(version: .http1_1, method: request.method, uri: target, headers: headers)
        let connection = try await pool.lease(deadline: deadline)
        let exchange = PooledExchange(
            abort: { connection.channel.close(promise: nil) },
            resumeReading: { connection.resumeReading() },
            onArrival: onArrival
        )
        connection.start(head, body: body, exchange: exchange, deadline: deadline)
        let answer = try await exchange.head()
        var response = UpstreamResponse(
            status: answer.status,
            headers: answer.headers,
            body: .pooled(PooledBody(exchange))
        )
        response.answeredOnArrival = exchange.answeredOnArrival
        return response
    }
}
