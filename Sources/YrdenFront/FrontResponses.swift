import YrdenHTTPServer
import YrdenProtocol

/// Response builders shared by the endpoints.
enum FrontResponses {
    static func json(_ status: Int, _ value: JSONValue, headers: HTTPHeaders = []) -> HTTPResponse {
        json(status, bytes: value.serialized(), headers: headers)
    }

    static func jsonRPC(_ status: Int, _ message: JSONRPCMessage, headers: HTTPHeaders = []) -> HTTPResponse {
        json(status, bytes: message.serialized(), headers: headers)
    }

    /// An answer serialized already (a cached listing).
    static func json(_ status: Int, bytes: [UInt8], headers: HTTPHeaders = []) -> HTTPResponse {
        // Most answers carry no header of their own: they share one list instead of allocating one each.
        guard !headers.isEmpty else { return HTTPResponse(status: status, headers: jsonType, body: .bytes(bytes)) }
        var headers = headers
        headers.add(name: "Content-Type", value: "application/json")
        return HTTPResponse(status: status, headers: headers, body: .bytes(bytes))
    }

    private static let jsonType: HTTPHeaders = ["Content-Type": "application/json"]

    /// An HTTP error whose body is a JSON-RPC error with no id, as the transport spec allows for 4xx answers.
    static func rpcError(_ status: Int, _ error: JSONRPCError, id: JSONRPCID? = nil) -> HTTPResponse {
        jsonRPC(status, .response(JSONRPCResponse(id: id, error: error)))
    }

    static let accepted = HTTPResponse(status: 202)

    static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        HTTPResponse.text(405, "method not allowed\n", headers: ["Allow": allowed])
    }

    static let notFound = HTTPResponse.text(404, "not found\n")
}

/// Server-Sent Events framing: one `message` event per JSON-RPC message, and comment lines as heartbeats.
enum SSE {
    static let headers: HTTPHeaders = [
        "Content-Type": "text/event-stream",
        "Cache-Control": "no-cache",
        "X-Accel-Buffering": "no",
    ]

    static func event(_ message: JSONRPCMessage) -> [UInt8] {
        var bytes = Array("event: message\ndata: ".utf8)
        message.write(into: &bytes)
        bytes.append(contentsOf: "\n\n".utf8)
        return bytes
    }

    /// A comment line: keeps proxies from timing the stream out and reveals a departed client (the write fails).
    static let heartbeat = Array(": keep-alive\n\n".utf8)
}
