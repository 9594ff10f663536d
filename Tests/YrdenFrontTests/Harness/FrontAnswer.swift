import YrdenHTTPServer
import YrdenProtocol

/// What the router answered one in-memory request: the status and headers as sent, and the body whole or,
/// for a streamed answer, an ``AnswerStream`` already running, whose events the test reads as they come.
struct FrontAnswer: Sendable {
    let status: Int
    let headers: HTTPHeaders
    /// The body of a complete answer; empty for a streamed one.
    let body: [UInt8]
    /// The running stream of a streamed answer (SSE); `nil` for a complete one.
    let stream: AnswerStream?

    init(_ response: HTTPResponse) {
        status = response.status
        headers = response.headers
        switch response.body {
        case .bytes(let bytes):
            body = bytes
            stream = nil
        case .stream(let produce):
            body = []
            stream = AnswerStream(produce)
        case .upgrade:
            // A WebSocket's socket exists only on the wire: tests of the upgrade itself are interop tests.
            body = []
            stream = nil
        }
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON; `nil` when it is not.
    var json: JSONValue? { try? JSONValue.parse(body) }

    /// The JSON-RPC error of the body (`error.code`, `error.message`); `nil` when it carries none.
    var rpcError: JSONValue? { json?["error"] }

    /// The JSON-RPC result of the body; `nil` when it carries none.
    var result: JSONValue? { json?["result"] }

    /// `Mcp-Session-Id`, which an `initialize` answer carries.
    var sessionID: String? { headers["Mcp-Session-Id"] }

    /// The answer's media type, lowercased, without parameters.
    var mediaType: String? {
        headers["Content-Type"].map { String($0.prefix { $0 != ";" }).lowercased() }
    }
}

extension JSONValue {
    /// Member `index` of an array; `nil` for anything else or past its end. For reading answers in tests.
    subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}
