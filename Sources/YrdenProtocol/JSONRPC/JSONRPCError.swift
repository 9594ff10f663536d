/// A JSON-RPC error object: what a peer answered, or what the gateway answers itself.
///
/// An error from an upstream is data and is passed through as it came; the factories below are for errors the
/// gateway produces.
package struct JSONRPCError: Error, Sendable, Hashable, CustomStringConvertible {
    package var code: Int
    package var message: String
    package var data: JSONValue?

    package init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    package init?(_ value: JSONValue) {
        guard let code = value["code"]?.intValue else { return nil }
        self.init(code: code, message: value["message"]?.stringValue ?? "", data: value["data"])
    }

    package var json: JSONValue {
        var object: JSONObject = ["code": .int(code), "message": .string(message)]
        if let data { object["data"] = data }
        return .object(object)
    }

    package var description: String { "JSON-RPC error \(code): \(message)" }

    package static func parseError(_ detail: String) -> JSONRPCError {
        JSONRPCError(code: -32700, message: "Parse error: \(detail)")
    }

    package static func invalidRequest(_ detail: String) -> JSONRPCError {
        JSONRPCError(code: -32600, message: "Invalid request: \(detail)")
    }

    package static func methodNotFound(_ method: String) -> JSONRPCError {
        JSONRPCError(code: -32601, message: "Method not found: \(method)")
    }

    package static func invalidParams(_ detail: String) -> JSONRPCError {
        JSONRPCError(code: -32602, message: detail)
    }

    package static func internalError(_ detail: String) -> JSONRPCError {
        JSONRPCError(code: -32603, message: detail)
    }

    package static func resourceNotFound(_ uri: String) -> JSONRPCError {
        JSONRPCError(code: -32002, message: "Resource not found: \(uri)", data: ["uri": .string(uri)])
    }

    /// The server the request was routed to cannot take it now (not connected, died mid-call, timed out).
    /// -32000 is the implementation-defined server error range the spec leaves to us.
    package static func upstreamUnavailable(_ message: String, server: String) -> JSONRPCError {
        JSONRPCError(code: -32000, message: message, data: ["server": .string(server)])
    }

    /// 2026-07-28: an HTTP header disagrees with the body, or a required one is missing.
    package static func headerMismatch(_ detail: String) -> JSONRPCError {
        JSONRPCError(code: -32020, message: "Header mismatch: \(detail)")
    }

    /// 2026-07-28's code for a protocol revision the server does not serve.
    package static let unsupportedVersionCode = -32022

    /// 2026-07-28: the request asked for a revision the server does not serve; `supported` says which it does.
    package static func unsupportedVersion(requested: JSONValue, supported: [String], detail: String) -> JSONRPCError {
        JSONRPCError(
            code: unsupportedVersionCode,
            message: "Unsupported protocol version: \(detail)",
            data: ["supported": .array(supported.map { .string($0) }), "requested": requested]
        )
    }
}
