/// A JSON document as the gateway sees it: exact integers, ordered object keys, nothing interpreted.
///
/// The gateway forwards what peers send without understanding most of it (`_meta`, schemas, content), so the
/// value keeps integer literals apart from floating-point ones and objects keep their key order. Tool schemas
/// read by a model and ids compared by a client therefore come out the way they went in.
package enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue {
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    package var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value == value.rounded() && abs(value) < 9.0e15: return Int(value)
        default: return nil
        }
    }

    package var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    package var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Member lookup on objects; `nil` for a missing key or a non-object.
    package subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The JSON type name, for error messages ("expected an object, found a string").
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    package init(nilLiteral: ()) { self = .null }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int) { self = .int(value) }
    package init(floatLiteral value: Double) { self = .double(value) }
    package init(stringLiteral value: String) { self = .string(value) }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}
