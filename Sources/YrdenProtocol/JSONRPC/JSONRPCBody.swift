/// One HTTP body or stdio line: a single message or (2025-03-26) a batch.
///
/// Each entry keeps its own validation outcome, because one bad member of a batch gets its own error response
/// while the others are served.
package enum JSONRPCBody: Sendable {
    case single(Result<JSONRPCMessage, JSONRPCError>, rawID: JSONRPCID?)
    case batch([(Result<JSONRPCMessage, JSONRPCError>, rawID: JSONRPCID?)])

    /// Throws -32700 when the bytes are not JSON; an empty batch is -32600 as JSON-RPC says.
    package static func decode(_ bytes: some Collection<UInt8>) throws(JSONRPCError) -> JSONRPCBody {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw .parseError(error.description)
        }
        if case .array(let members) = value {
            guard !members.isEmpty else { throw .invalidRequest("empty batch") }
            return .batch(members.map { (classify($0), JSONRPCMessage.bestEffortID($0)) })
        }
        return .single(classify(value), rawID: JSONRPCMessage.bestEffortID(value))
    }

    private static func classify(_ value: JSONValue) -> Result<JSONRPCMessage, JSONRPCError> {
        Result { () throws(JSONRPCError) in try JSONRPCMessage(value) }
    }
}
