import YrdenProtocol

/// Pages of the gateway's own lists. A cursor names the catalog generation and an offset; a cursor from an
/// older generation is refused (-32602), so a client that paginates across a change starts over instead of
/// skipping or repeating items.
package enum Pagination {
    package static let pageSize = 500

    package static func page(
        _ items: [JSONValue],
        key: String,
        cursor: JSONValue?,
        generation: Int
    ) throws(JSONRPCError) -> JSONValue {
        var offset = 0
        if let cursor {
            guard let text = cursor.stringValue, let decoded = decode(text), decoded.generation == generation,
                decoded.offset <= items.count
            else {
                throw .invalidParams("Invalid or expired cursor; list again from the start")
            }
            offset = decoded.offset
        }
        let end = min(items.count, offset + pageSize)
        var result: JSONObject = [key: .array(Array(items[offset..<end]))]
        if end < items.count {
            result["nextCursor"] = .string(encode(generation: generation, offset: end))
        }
        return .object(result)
    }

    static func encode(generation: Int, offset: Int) -> String {
        "y1." + String(generation, radix: 36) + "." + String(offset, radix: 36)
    }

    static func decode(_ cursor: String) -> (generation: Int, offset: Int)? {
        let parts = cursor.split(separator: ".")
        guard parts.count == 3, parts[0] == "y1", let generation = Int(parts[1], radix: 36),
            let offset = Int(parts[2], radix: 36), offset >= 0
        else { return nil }
        return (generation, offset)
    }
}
