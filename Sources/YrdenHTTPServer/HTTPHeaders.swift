/// HTTP header fields in the order they were received or added.
///
/// Names keep their original spelling (some peers care on the way out) but every lookup ignores ASCII case,
/// as RFC 9110 requires. Repeated names are kept as separate fields.
package struct HTTPHeaders: Sendable, Hashable {
    /// One header field.
    package struct Field: Sendable, Hashable {
        package let name: String
        package let value: String
        /// The name's ``NameKey``, worked out once: a request's headers are looked up a dozen times each.
        fileprivate let key: NameKey

        package init(name: String, value: String) {
            self.name = name
            self.value = value
            self.key = NameKey(name)
        }
    }

    /// A name's length and first seven bytes in lower case, in one integer: two names that differ (nearly every
    /// pair a lookup meets) differ here, at the price of one comparison. Equal keys are the same name when it
    /// is at most seven bytes long; longer names are compared in full.
    fileprivate struct NameKey: Sendable, Hashable {
        let bits: UInt64

        /// The key holds the whole name: its length (the low byte) is at most seven.
        var isWholeName: Bool { bits & 0xFF <= 7 }

        init(_ name: String) {
            // In place: a native or short string has its UTF-8 at hand, and walking a `prefix` view cost more
            // than the comparisons this key saves.
            bits = name.utf8.withContiguousStorageIfAvailable(Self.bits) ?? Self.bits(of: Array(name.utf8))
        }

        private static func bits(of name: UnsafeBufferPointer<UInt8>) -> UInt64 {
            var bits = UInt64(truncatingIfNeeded: Swift.min(name.count, 255))
            for position in 0..<Swift.min(name.count, 7) {
                bits |= UInt64(HTTPHeaders.asciiLower(name[position])) << (8 * UInt64(position + 1))
            }
            return bits
        }

        private static func bits(of name: [UInt8]) -> UInt64 {
            name.withUnsafeBufferPointer(bits)
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
        let key = NameKey(name)
        return fields.first { Self.isNamed($0, name, key) }?.value
    }

    /// Every value for `name`, ignoring case, in order.
    package func values(for name: String) -> [String] {
        let key = NameKey(name)
        return fields.filter { Self.isNamed($0, name, key) }.map(\.value)
    }

    /// Whether at least one field is called `name` (ignoring case).
    package func contains(_ name: String) -> Bool {
        let key = NameKey(name)
        return fields.contains { Self.isNamed($0, name, key) }
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
        let key = NameKey(name)
        fields.removeAll { Self.isNamed($0, name, key) }
    }

    private static func isNamed(_ field: Field, _ name: String, _ key: NameKey) -> Bool {
        field.key == key && (key.isWholeName || sameName(field.name, name))
    }

    package var count: Int { fields.count }
    package var isEmpty: Bool { fields.isEmpty }

    /// ASCII case-insensitive comparison without allocating lowercased copies; header names are ASCII tokens.
    /// Names of different lengths (most pairs a lookup meets) differ at once: a native string knows its length.
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        let inPlace = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in sameBytes(left, right) }
        }
        return (inPlace ?? nil) ?? lhs.utf8.elementsEqual(rhs.utf8) { asciiLower($0) == asciiLower($1) }
    }

    private static func sameBytes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        for position in left.indices where left[position] != right[position] {
            guard asciiLower(left[position]) == asciiLower(right[position]) else { return false }
        }
        return true
    }

    fileprivate static func asciiLower(_ byte: UInt8) -> UInt8 {
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
