/// HTTP header fields in the order they were received or added.
///
/// Names keep their original spelling (some peers care on the way out) but every lookup ignores ASCII case,
/// as RFC 9110 requires. Repeated names are kept as separate fields.
package struct HTTPHeaders: Sendable, Hashable {
    /// One header field.
    package struct Field: Sendable, Hashable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field]

    package init(_ pairs: [(String, String)] = []) {
        self.fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// No fields yet, with room for `capacity` of them.
    package init(capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    /// The first value for `name`, ignoring case; `nil` when there is none.
    package subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value for `name`, ignoring case, in order.
    package func values(for name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Whether at least one field is called `name` (ignoring case).
    package func contains(_ name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    /// Appends a field, keeping any earlier ones with the same name.
    package mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field called `name` (ignoring case) with one field.
    package mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field called `name` (ignoring case).
    package mutating func remove(name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    package var count: Int { fields.count }
    package var isEmpty: Bool { fields.isEmpty }

    /// ASCII case-insensitive comparison without allocating lowercased copies; header names are ASCII tokens.
    /// Names of different lengths (most pairs a lookup meets) differ at once: a native string knows its length.
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return true
            case (let l?, let r?):
                if l != r && asciiLower(l) != asciiLower(r) { return false }
            default:
                return false
            }
        }
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }
}

extension HTTPHeaders: Sequence {
    package typealias Element = (name: String, value: String)

    package struct Iterator: IteratorProtocol {
        fileprivate var base: IndexingIterator<[Field]>

        package mutating func next() -> Element? {
            base.next().map { (name: $0.name, value: $0.value) }
        }
    }

    package func makeIterator() -> Iterator {
        Iterator(base: fields.makeIterator())
    }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }
}

extension HTTPHeaders: ExpressibleByArrayLiteral {
    /// `[]` for no headers, or `[("Name", "value"), …]` to keep repeated names.
    package init(arrayLiteral elements: (String, String)...) {
        self.init(elements)
    }
}

extension HTTPHeaders: CustomStringConvertible {
    package var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}
