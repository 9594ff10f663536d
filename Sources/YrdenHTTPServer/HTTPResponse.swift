/// What a handler answers: a status, headers and either a complete body or a stream.
package struct HTTPResponse: Sendable {
    package var status: Int
    /// Header fields to send. `Content-Length` is computed for `.bytes` bodies and a streamed body is sent
    /// with chunked transfer encoding, so neither needs to be set here.
    package var headers: HTTPHeaders
    package var body: Body

    package enum Body: Sendable {
        /// A complete body, sent with `Content-Length`.
        case bytes([UInt8])
        /// A streamed body (used for Server-Sent Events). The server calls the closure once, in a task it owns;
        /// the response ends when the closure returns. When the client goes away or the server shuts down,
        /// `write` throws and the task running the closure is cancelled.
        case stream(@Sendable (HTTPBodyWriter) async -> Void)
        /// A protocol switch (status 101, with the `Upgrade` header the new protocol needs): once the answer's
        /// head is sent, the server calls the closure once, in a task it owns, with the connection's socket,
        /// and closes the socket when the closure returns. At shutdown the task is cancelled.
        case upgrade(@Sendable (UpgradedSocket) async -> Void)
    }

    package init(status: Int, headers: HTTPHeaders = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

extension HTTPResponse {
    /// A plain-text response.
    package static func text(_ status: Int, _ text: String, headers: HTTPHeaders = []) -> HTTPResponse {
        var headers = headers
        if !headers.contains("Content-Type") {
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        }
        return HTTPResponse(status: status, headers: headers, body: .bytes(Array(text.utf8)))
    }

    /// An RFC 9457 problem document that closes the connection: what the server answers on its own (413,
    /// 503), before any handler saw the request. `detail` is plain text the server wrote, escaped anyway.
    static func problem(_ status: Int, _ title: String, detail: String) -> HTTPResponse {
        let escaped = detail.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
        let body = #"{"type":"about:blank","title":"\#(title)","status":\#(status),"detail":"\#(escaped)"}"#
        return HTTPResponse(
            status: status,
            headers: [("Content-Type", "application/problem+json"), ("Connection", "close")],
            body: .bytes(Array(body.utf8))
        )
    }
}

/// The function that turns each request into a response. It runs in a child task of `HTTPServer.run()`.
package typealias HTTPHandler = @Sendable (HTTPRequest) async -> HTTPResponse
