/// A JSON object that keeps its keys in document order.
///
/// Lookup of a few keys is a linear scan, which beats hashing them; an object past ``indexThreshold`` keys
/// also keeps a key-to-position index, so lookups, equality and building stay linear in its size however
/// large a peer makes it (a tool schema with tens of thousands of properties). Equality and hashing ignore
/// order, as JSON does.
package struct JSONObject: Sendable, Sequence {
    package typealias Element = (key: String, value: JSONValue)

    /// The size from which lookups go through ``index`` rather than a scan.
    static let indexThreshold = 16

    /// One array of key-value pairs, not an array of keys beside an array of values: one allocation per object
    /// instead of two, and a smaller `JSONValue`, which matters with tens of thousands of tool schemas held.
    fileprivate struct Member {
        var key: String
        var value: JSONValue
    }

    private var members: [Member]
    /// Position of the last occurrence of each key; `nil` while the object is small.
    private var index: [String: Int]?

    package init() {
        members = []
        index = nil
    }

    package init(_ pairs: some Sequence<(String, JSONValue)>) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }

    /// The parser's object, allocated at its exact size. Duplicate keys are all kept; the last one is the one
    /// visible through `subscript`, since lookup finds the last occurrence.
    init(parsed pairs: ArraySlice<Element>) {
        members = []
        members.reserveCapacity(pairs.count)
        for pair in pairs { members.append(Member(key: pair.key, value: pair.value)) }
        index = nil
        rebuildIndex()
    }

    /// Appends without checking for a duplicate key (the caller knows there is none).
    mutating func appendUnchecked(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
        if index != nil {
            index?[key] = members.count - 1
        } else if members.count >= Self.indexThreshold {
            rebuildIndex()
        }
    }

    package var count: Int { members.count }
    package var isEmpty: Bool { members.isEmpty }

    /// Where the visible value of `key` sits: its last occurrence.
    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return members.lastIndex { $0.key == key }
    }

    private mutating func rebuildIndex() {
        guard members.count >= Self.indexThreshold else {
            index = nil
            return
        }
        var rebuilt = [String: Int](minimumCapacity: members.count)
        for (position, member) in members.enumerated() { rebuilt[member.key] = position }
        index = rebuilt
    }

    package subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return members[position].value
        }
        set {
            if let position = position(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    if index != nil { rebuildIndex() }
                }
            } else if let newValue {
                appendUnchecked(key, newValue)
            }
        }
    }

    /// Members in order. A concrete iterator, not a type-erased one: serializing and digesting walk every
    /// member of every object, and a closure call per member was a large share of listing a big catalog.
    package struct Iterator: IteratorProtocol {
        fileprivate let members: [Member]
        fileprivate var position = 0

        package mutating func next() -> Element? {
            guard position < members.count else { return nil }
            defer { position += 1 }
            return (members[position].key, members[position].value)
        }
    }

    package func makeIterator() -> Iterator {
        Iterator(members: members)
    }

    /// Compact JSON of the members, in order. Members are read in place rather than copied out one by one: a
    /// copy retains and releases every key and value, which was a quarter of serializing a large listing.
    func write(to output: inout JSONOutput) {
        output.append(UInt8(ascii: "{"))
        members.withUnsafeBufferPointer { members in
            for position in members.indices {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.writeString(members[position].key, to: &output)
                output.append(UInt8(ascii: ":"))
                members[position].value.write(to: &output)
            }
        }
        output.append(UInt8(ascii: "}"))
    }
}

extension JSONObject: Hashable {
    /// Linear for objects of any size: each key of one side is found in the other by its index.
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
