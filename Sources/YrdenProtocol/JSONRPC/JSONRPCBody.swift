/// One HTTP body or stdio line: a single message or (2025-03-26) a batch.
///
/// Each entry keeps its own validation outcome, because one bad member of a batch gets its own error response
/// while the others are served.
package enum JSONRPCBody: Sendable {
    case single(Result<JSONRPCMessage, JSONRPCError>, rawID: JSONRPCID?)
    case batch([(Result<JSONRPCMessage, JSONRPCError>, rawID: JSONRPCID?)])

    /// The most messages one batch may hold. Real clients batch a handful; the bound keeps one request's
    /// fan-out (and the answers it collects) proportionate, whatever the body limit allows.
    package static let maxBatchMembers = 1000

    /// Throws -32700 when the bytes are not JSON; an empty batch, or one of more than `maxBatchMembers`
    /// messages, is -32600.
    package static func decode(
        _ bytes: some Collection<UInt8>,
        maxBatchMembers: Int = maxBatchMembers
    ) throws(JSONRPCError) -> JSONRPCBody {
        let decoded = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONRPCError) in try decode(buffer: buffer, maxBatchMembers: maxBatchMembers) }
        }
        if let decoded { return try decoded.get() }
        return try Array(bytes).withUnsafeBufferPointer { buffer throws(JSONRPCError) in
            try decode(buffer: buffer, maxBatchMembers: maxBatchMembers)
        }
    }

    /// The decoding itself, over the bytes in place: a caller in another module gets an unspecialized `decode`,
    /// and a generic scan of every byte through it cost a witness call each.
    private static func decode(
        buffer bytes: UnsafeBufferPointer<UInt8>,
        maxBatchMembers: Int
    ) throws(JSONRPCError) -> JSONRPCBody {
        if let count = BatchPrescan.memberCount(bytes, countingUpTo: maxBatchMembers), count > maxBatchMembers {
            throw .invalidRequest(
                "a batch may hold at most \(maxBatchMembers) messages, this one holds more; "
                    + "send them in smaller batches"
            )
        }
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

    /// A single `initialize` request: the one message that opens a session instead of running in one.
    package var isInitialize: Bool {
        guard case .single(.success(.request(let request)), _) = self else { return false }
        return request.method == MCPMethod.initialize
    }

    private static func classify(_ value: JSONValue) -> Result<JSONRPCMessage, JSONRPCError> {
        Result { () throws(JSONRPCError) in try JSONRPCMessage(value) }
    }
}
