import YrdenProtocol

/// The `arguments` object of a tool call or prompt request, read with errors that name the bad argument.
///
/// Every failure is -32602 (invalid params): the demo treats argument mistakes as protocol errors so that
/// tests of the gateway can see one error shape for "unknown tool" and "bad arguments" alike.
struct Arguments {
    private let values: JSONObject
    /// What the arguments belong to, for messages: "tool 'add'", "prompt 'greet'".
    private let owner: String

    init(_ value: JSONValue?, owner: String) throws(JSONRPCError) {
        self.owner = owner
        switch value {
        case nil, .null?: values = [:]
        case .object(let object)?: values = object
        case let other?: throw .invalidParams("Arguments of \(owner) must be an object, found \(other.typeName)")
        }
    }

    private func missing(_ key: String) -> JSONRPCError {
        .invalidParams("Missing required argument '\(key)' for \(owner)")
    }

    private func wrongType(_ key: String, expected: String, found: JSONValue) -> JSONRPCError {
        .invalidParams("Argument '\(key)' of \(owner) must be \(expected), found \(found.typeName)")
    }

    /// A present, non-null value; `nil` when the key is absent or null.
    private func present(_ key: String) -> JSONValue? {
        guard let value = values[key], value != .null else { return nil }
        return value
    }

    func string(_ key: String) throws(JSONRPCError) -> String? {
        guard let value = present(key) else { return nil }
        guard case .string(let text) = value else { throw wrongType(key, expected: "a string", found: value) }
        return text
    }

    func requiredString(_ key: String) throws(JSONRPCError) -> String {
        guard let text = try string(key) else { throw missing(key) }
        return text
    }

    /// A number as it was written: `.int` or `.double`.
    func number(_ key: String) throws(JSONRPCError) -> JSONValue? {
        guard let value = present(key) else { return nil }
        switch value {
        case .int, .double: return value
        default: throw wrongType(key, expected: "a number", found: value)
        }
    }

    func requiredNumber(_ key: String) throws(JSONRPCError) -> JSONValue {
        guard let value = try number(key) else { throw missing(key) }
        return value
    }

    func integer(_ key: String) throws(JSONRPCError) -> Int? {
        guard let value = try number(key) else { return nil }
        guard let integer = value.intValue else { throw wrongType(key, expected: "an integer", found: value) }
        return integer
    }

    /// Checks that a value lies in a range, or throws -32602 saying which range.
    func check<T: Comparable>(_ key: String, _ value: T, in range: ClosedRange<T>) throws(JSONRPCError) {
        guard range.contains(value) else {
            throw .invalidParams(
                "Argument '\(key)' of \(owner) must be between \(range.lowerBound) and \(range.upperBound)"
            )
        }
    }
}
