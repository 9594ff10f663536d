import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes newline-terminated lines to a file descriptor, one whole line per `write(2)` loop, under a lock so
/// that concurrent writers never interleave. This is MCP's stdio framing, used by both sides of the gateway.
package final class LineWriter: Sendable {
    private let fileDescriptor: Mutex<Int32>

    package init(fileDescriptor: Int32) {
        self.fileDescriptor = Mutex(fileDescriptor)
    }

    /// Appends the newline and writes the line. A failed write (the reader has gone) drops it.
    package func write(line: [UInt8]) {
        var line = line
        line.append(UInt8(ascii: "\n"))
        fileDescriptor.withLock { descriptor in _ = Self.writeAll(line, to: descriptor) }
    }

    /// One diagnostic line on stderr; stdout carries MCP messages only.
    package static func log(_ text: String) {
        _ = writeAll(Array((text + "\n").utf8), to: STDERR_FILENO)
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.write(descriptor, pointer, count)
        #elseif canImport(Musl)
        Musl.write(descriptor, pointer, count)
        #else
        Glibc.write(descriptor, pointer, count)
        #endif
    }
}

/// Reads a file descriptor with blocking reads until end of file and hands over each line without its
/// terminator ("\n" or "\r\n"). Blank lines are skipped; a last line without "\n" still counts.
///
/// A line longer than `maxLineBytes` is not kept: `oversized` is told once, the rest of that line is read and
/// dropped, and reading goes on with the next line. So one peer that never sends a newline cannot grow memory.
package enum LineReader {
    /// As large as the HTTP endpoint's default body limit: one message, whichever way it comes.
    package static let defaultMaxLineBytes = 16 * 1024 * 1024

    package static func readLines(
        fileDescriptor: Int32,
        maxLineBytes: Int = defaultMaxLineBytes,
        oversized: (Int) -> Void = { _ in },
        _ body: (ArraySlice<UInt8>) -> Void
    ) {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var pending: [UInt8] = []
        var discarding = false
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                systemRead(fileDescriptor, buffer.baseAddress!, buffer.count)
            }
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            if count == 0 { break }
            var start = 0
            for index in 0..<count where chunk[index] == UInt8(ascii: "\n") {
                defer { start = index + 1 }
                if discarding {
                    discarding = false
                    continue
                }
                let length = pending.count + index - start
                if length > maxLineBytes {
                    oversized(length)
                    pending.removeAll()
                } else if pending.isEmpty {
                    deliver(chunk[start..<index], body)
                } else {
                    pending.append(contentsOf: chunk[start..<index])
                    deliver(pending[...], body)
                    pending.removeAll(keepingCapacity: pending.count <= chunk.count)
                }
            }
            guard !discarding else { continue }
            if pending.count + count - start > maxLineBytes {
                oversized(pending.count + count - start)
                pending = []
                discarding = true
            } else {
                pending.append(contentsOf: chunk[start..<count])
            }
        }
        if !discarding { deliver(pending[...], body) }
    }

    private static func deliver(_ line: ArraySlice<UInt8>, _ body: (ArraySlice<UInt8>) -> Void) {
        var line = line
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
        body(line)
    }

    private static func systemRead(_ descriptor: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.read(descriptor, pointer, count)
        #elseif canImport(Musl)
        Musl.read(descriptor, pointer, count)
        #else
        Glibc.read(descriptor, pointer, count)
        #endif
    }
}
