/// A complete HTTP request, body included, as the server hands it to a handler.
package struct HTTPRequest: Sendable {
    /// The method token as sent: `"GET"`, `"POST"`, `"DELETE"`, …
    package var method: String
    /// The path without the query string, percent-decoded as libmicrohttpd decodes it (`"/mcp"`).
    package var path: String
    /// Decoded query arguments. A repeated argument keeps its first value; an argument without `=` maps to `""`.
    package var query: [String: String]
    package var headers: HTTPHeaders
    /// The whole body; empty when the request had none. Never longer than `maxBodyBytes`.
    package var body: [UInt8]
    /// The client's network address; `nil` when the socket gave none (or in tests).
    package var peer: PeerAddress?

    package init(
        method: String,
        path: String,
        query: [String: String] = [:],
        headers: HTTPHeaders = [],
        body: [UInt8] = [],
        peer: PeerAddress? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.peer = peer
    }
}
