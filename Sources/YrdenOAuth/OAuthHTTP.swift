/// An HTTP request OAuth makes: metadata fetches, registration and token requests.
package struct OAuthHTTPRequest: Sendable {
    package var method: String
    package var url: String
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    package init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// The complete answer to an ``OAuthHTTPRequest``.
package struct OAuthHTTPResponse: Sendable {
    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// How OAuth reaches the network: one function, so tests drive every step without a socket and production
/// uses the gateway's one `HTTPClient` (see `OAuthHTTP.live`).
///
/// `send` throws only when there is no HTTP answer (refused, reset, timed out, body too large); any status,
/// redirects included, is a response. Redirects must not be followed: a credential must never travel to a
/// host the gateway did not choose.
package struct OAuthHTTP: Sendable {
    package var send: @Sendable (OAuthHTTPRequest) async throws -> OAuthHTTPResponse

    package init(send: @escaping @Sendable (OAuthHTTPRequest) async throws -> OAuthHTTPResponse) {
        self.send = send
    }
}
