/// The serializer's growable byte buffer, written through a raw pointer: an append costs a capacity check and
/// a store, where `Array`'s costs a uniqueness check and, for a run of bytes, a generic element-wise copy. At
/// a page of 500 tools those were most of serializing it.
struct JSONOutput: ~Copyable {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        storage[count] = byte
        count &+= 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if capacity &- count < bytes.count { grow(to: count + bytes.count) }
        (storage + count).update(from: source, count: bytes.count)
        count &+= bytes.count
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// Room for `extra` more bytes, written through the pointer `body` gets; `body` returns how many it wrote.
    @inline(__always)
    mutating func write(upTo extra: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if capacity &- count < extra { grow(to: count + extra) }
        count &+= body(storage + count)
    }

    private mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: storage, count: count)
        storage.deallocate()
        storage = grown
        capacity = newCapacity
    }

    /// Appends what was written to `array`.
    borrowing func append(to array: inout [UInt8]) {
        array.append(contentsOf: UnsafeBufferPointer(start: storage, count: count))
    }

    /// What was written, as an array of exactly its size.
    borrowing func bytes() -> [UInt8] {
        Array(UnsafeBufferPointer(start: storage, count: count))
    }
}
