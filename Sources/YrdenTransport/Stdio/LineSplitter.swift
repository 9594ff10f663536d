import Glibc

/// Splits a byte stream into newline-terminated lines, as MCP's stdio transport frames messages.
///
/// A line longer than `maxLineBytes` is dropped whole (and reported) instead of growing memory without bound.
struct LineSplitter {
    private var pending: [UInt8] = []
    private var discarding = false
    let maxLineBytes: Int

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// Bytes held between lines, for tests.
    var heldCapacity: Int { pending.capacity }

    enum Piece: Equatable {
        case line([UInt8])
        case oversized
    }

    /// The index of the first `\n` of `chunk` at or after `start`. `memchr`, not `firstIndex(of:)`: the
    /// splitter runs on the event loop, and in a debug build the generic search over a slice took a third of
    /// the loop while a child sent a list of megabytes.
    private static func newline(in chunk: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = chunk.baseAddress, start < chunk.count else { return nil }
        guard let found = memchr(base + start, 0x0A, chunk.count - start) else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    /// Feeds a chunk and calls `emit` for each complete line (without its `\n`, and without a trailing `\r`).
    mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, emit: (Piece) -> Void) {
        var start = 0
        while let newline = Self.newline(in: chunk, from: start) {
            let part = UnsafeBufferPointer(rebasing: chunk[start..<newline])
            start = newline + 1
            if discarding {
                discarding = false
                continue
            }
            var line: [UInt8]
            if pending.isEmpty {
                line = Array(part)
            } else {
                pending.append(contentsOf: part)
                // The buffer goes with the line: keeping its capacity would hold a copy as large as the largest
                // line this server ever split (up to `maxLineBytes`) for as long as it runs.
                line = pending
                pending = []
            }
            if line.last == 0x0D { line.removeLast() }
            if line.count > maxLineBytes {
                emit(.oversized)
            } else if !line.isEmpty {
                emit(.line(line))
            }
        }
        guard start < chunk.count, !discarding else { return }
        pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start...]))
        if pending.count > maxLineBytes {
            pending.removeAll()
            discarding = true
            emit(.oversized)
        }
    }
}
