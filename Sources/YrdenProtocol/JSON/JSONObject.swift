/// A JSON object that keeps its keys in document order.
///
/// Lookup is linear: MCP objects are small, and a linear scan over a few keys beats hashing them. Equality
/// and hashing ignore order, as JSON does.
package struct JSONObject: Sendable, Sequence {
    package typealias Element = (key: String, value: JSONValue)

    private var keys: [String]
    private var values: [JSONValue]

    package init() {
        keys = []
        values = []
    }

    package init(_ pairs: some Sequence<(String, JSONValue)>) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }

    /// Appends without checking for a duplicate key; the parser uses it, where duplicates keep the last value
    /// visible through `subscript` because lookup scans from the end.
    mutating func appendUnchecked(_ key: String, _ value: JSONValue) {
        keys.append(key)
        values.append(value)
    }

    package var count: Int { keys.count }
    package var isEmpty: Bool { keys.isEmpty }

    package subscript(key: String) -> JSONValue? {
        get {
            guard let index = keys.lastIndex(of: key) else { return nil }
            return values[index]
        }
        set {
            if let index = keys.lastIndex(of: key) {
                if let newValue {
                    values[index] = newValue
                } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    package func makeIterator() -> some IteratorProtocol<Element> {
        var index = 0
        let keys = self.keys
        let values = self.values
        return AnyIterator {
            guard index < keys.count else { return nil }
            defer { index += 1 }
            return (keys[index], values[index])
        }
    }
}

extension JSONObject: Hashable {
    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs where rhs[key] != value { return false }
        return true
    }

    package func hash(into hasher: inout Hasher) {
        var combined = 0
        for (key, value) in self {
            var entry = Hasher()
            entry.combine(key)
            entry.combine(value)
            combined ^= entry.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}

extension JSONObject {
    /// Removes `key` and returns what it held.
    @discardableResult
    package mutating func removeValue(_ key: String) -> JSONValue? {
        defer { self[key] = nil }
        return self[key]
    }
}
