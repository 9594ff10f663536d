import Foundation
import Testing
import YrdenLineIO

#if canImport(Glibc)
import Glibc
#endif

/// The stdio line reader keeps at most one line of `maxLineBytes`: a longer one is reported and skipped, and
/// the lines after it are read as usual.
@Suite struct LineReaderBoundTests {
    /// Everything `readLines` reports for `input`, written to a pipe by a thread of its own (not a task: the
    /// reader blocks its thread, and the cooperative pool may have no other).
    private func read(_ input: [UInt8], maxLineBytes: Int) -> [LineInput] {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let writer = descriptors[1]
        let writing = Thread {
            input.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(writer, buffer.baseAddress! + offset, buffer.count - offset)
                    guard written > 0 else { break }
                    offset += written
                }
            }
            close(writer)
        }
        writing.start()
        var seen: [LineInput] = []
        LineReader.readLines(
            fileDescriptor: descriptors[0],
            maxLineBytes: maxLineBytes,
            oversized: { bytes in
                seen.append(.oversized(bytes: bytes))
            }
        ) { seen.append(.line(Array($0))) }
        close(descriptors[0])
        return seen
    }

    @Test func aLongLineIsReportedOnceAndTheNextLinesStillArrive() {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 300_000)
        let input = Array("first\n".utf8) + long + Array("\nsecond\r\nthird".utf8)
        let seen = read(input, maxLineBytes: 1000)
        #expect(seen.count == 4)
        #expect(seen.first == .line(Array("first".utf8)))
        if case .oversized(let bytes) = seen.dropFirst().first {
            #expect(bytes > 1000)
        } else {
            Issue.record(
                "expected the long line to be reported, got \(seen.dropFirst().first.map { "\($0)" } ?? "nothing")"
            )
        }
        #expect(Array(seen.suffix(2)) == [.line(Array("second".utf8)), .line(Array("third".utf8))])
    }

    @Test func aLongLineWithinOneReadIsReportedToo() {
        let seen = read(Array("0123456789\nok\n".utf8), maxLineBytes: 5)
        #expect(seen == [.oversized(bytes: 10), .line(Array("ok".utf8))])
    }

    @Test func aLineOfExactlyTheLimitIsKept() {
        #expect(read(Array("12345\n".utf8), maxLineBytes: 5) == [.line(Array("12345".utf8))])
    }

    @Test func anUnterminatedLongLastLineIsNotDelivered() {
        let seen = read(Array("ok\n".utf8) + [UInt8](repeating: 0x41, count: 200_000), maxLineBytes: 100)
        #expect(seen.first == .line(Array("ok".utf8)))
        #expect(seen.count == 2)
        #expect(seen.last.map { if case .oversized = $0 { true } else { false } } == true)
    }
}
