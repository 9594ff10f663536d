/// Bytes a streamed response has queued but libmicrohttpd has not yet taken, plus the stream's end flags.
///
/// Reads consume from the front without shifting the array on every call: a read index advances and the
/// storage is compacted only when the consumed prefix is large.
struct StreamBuffer {
    /// Above this many unsent bytes, `write` waits for the client to catch up.
    static let highWater = 1 << 20
    /// Waiting writers are woken once the unsent bytes fall to this many.
    static let lowWater = 256 << 10

    private var storage: [UInt8] = []
    private var readIndex = 0
    /// No more bytes will be appended: the writer finished or the exchange ended. Readers drain, then see the end.
    var finished = false

    var pendingCount: Int { storage.count - readIndex }
    var isEmpty: Bool { readIndex == storage.count }

    mutating func append(_ bytes: [UInt8]) {
        if isEmpty {
            storage.removeAll(keepingCapacity: true)
            readIndex = 0
        }
        storage.append(contentsOf: bytes)
    }

    /// Copies as many pending bytes as fit into `destination`; returns how many were copied.
    mutating func take(into destination: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(pendingCount, destination.count)
        guard count > 0 else { return 0 }
        storage.withUnsafeBytes { source in
            destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[readIndex..<readIndex + count]))
        }
        readIndex += count
        if readIndex == storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= Self.highWater)
            readIndex = 0
        } else if readIndex >= 64 << 10 && readIndex * 2 >= storage.count {
            storage.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        return count
    }
}
