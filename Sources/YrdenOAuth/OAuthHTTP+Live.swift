import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension OAuthHTTP {
    /// OAuth's HTTP over `client`: pass the gateway's upstream client, whose configuration refuses redirects.
    ///
    /// Each request has its own deadline; a body longer than `maxBodyBytes` is an error (metadata and token
    /// answers are small, and a huge one is not worth holding in memory).
    package static func live(
        client: HTTPClient,
        timeout: Duration = .seconds(30),
        maxBodyBytes: Int = 1 << 20
    ) -> OAuthHTTP {
        OAuthHTTP { request in
            var outgoing = HTTPClientRequest(url: request.url)
            outgoing.method = HTTPMethod(rawValue: request.method)
            for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
            if !request.body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: request.body)) }
            let (seconds, attoseconds) = timeout.components
            let deadline = NIODeadline.now() + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            let response = try await client.execute(outgoing, deadline: deadline)
            let body = try await response.body.collect(upTo: maxBodyBytes)
            return OAuthHTTPResponse(
                status: Int(response.status.code),
                headers: response.headers.map { (name: $0.name, value: $0.value) },
                body: Array(body.readableBytesView)
            )
        }
    }
}
