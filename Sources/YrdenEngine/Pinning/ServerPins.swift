/// One server's pins by upstream tool name, held as one array sorted by name, of exactly their number.
///
/// A pin is held for every tool of every server, and a dictionary of 50 pins takes 128 buckets (it keeps
/// a quarter free and rounds up to a power of two): 200 servers of 50 tools held 2.9 MB of buckets for
/// 1.1 MB of pins. Looked up by binary search; a listing rebuilds a server's pins in a dictionary and
/// sorts them back once (``init(_:)``), so no listing inserts one pin at a time.
package struct ServerPins: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    package typealias Element = (key: String, value: PinBook.Pin)

    private struct Entry: Sendable, Hashable {
        var name: String
        var pin: PinBook.Pin
    }

    /// Sorted by name, names unique.
    private var entries: [Entry]

    package init(_ pins: [String: PinBook.Pin] = [:]) {
        entries = pins.map { Entry(name: $0.key, pin: $0.value) }
        entries.sort { $0.name < $1.name }
    }

    package init(dictionaryLiteral elements: (String, PinBook.Pin)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    package var count: Int { entries.count }
    package var isEmpty: Bool { entries.isEmpty }

    /// The tools' names, sorted.
    package var keys: [String] { entries.map(\.name) }

    package var values: [PinBook.Pin] { entries.map(\.pin) }

    /// The pins as a dictionary, to change many at once and make them into pins again with ``init(_:)``.
    package var dictionary: [String: PinBook.Pin] {
        Dictionary(uniqueKeysWithValues: entries.lazy.map { ($0.name, $0.pin) })
    }

    package subscript(name: String) -> PinBook.Pin? {
        get {
            let index = position(of: name)
            return index < entries.count && entries[index].name == name ? entries[index].pin : nil
        }
        set {
            let index = position(of: name)
            let found = index < entries.count && entries[index].name == name
            switch (found, newValue) {
            case (true, let pin?): entries[index].pin = pin
            case (true, nil): entries.remove(at: index)
            case (false, let pin?): entries.insert(Entry(name: name, pin: pin), at: index)
            case (false, nil): break
            }
        }
    }

    package func makeIterator() -> some IteratorProtocol<Element> {
        entries.lazy.map { (key: $0.name, value: $0.pin) }.makeIterator()
    }

    /// The first index whose name is not below `name`.
    private func position(of name: String) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].name < name { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
