/// A JSON-RPC request id. It keeps its JSON type: `1` and `"1"` are different ids.
package enum JSONRPCID: Sendable, Hashable, CustomStringConvertible {
    case int(Int)
    case string(String)

    /// `nil` for anything the spec does not allow as an id (null, fractions, objects…).
    package init?(_ value: JSONValue) {
        switch value {
        case .int(let value): self = .int(value)
        case .string(let value): self = .string(value)
        default: return nil
        }
    }

    package var json: JSONValue {
        switch self {
        case .int(let value): .int(value)
        case .string(let value): .string(value)
        }
    }

    package var description: String {
        switch self {
        case .int(let value): String(value)
        case .string(let value): "\"\(value)\""
        }
    }
}
