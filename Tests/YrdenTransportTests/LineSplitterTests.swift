import Testing

@testable import YrdenTransport

@Suite struct LineSplitterTests {
    private func split(_ chunks: [String], max: Int = 100) -> [LineSplitter.Piece] {
        var splitter = LineSplitter(maxLineBytes: max)
        var pieces: [LineSplitter.Piece] = []
        for chunk in chunks {
            Array(chunk.utf8).withUnsafeBufferPointer { splitter.feed($0) { pieces.append($0) } }
        }
        return pieces
    }

    @Test func linesAcrossChunksAreJoined() {
        #expect(
            split(["{\"a\"", ":1}\n{\"b\":2}\n{\"c"]) == [
                .line(Array("{\"a\":1}".utf8)), .line(Array("{\"b\":2}".utf8)),
            ]
        )
    }

    /// A long line that arrived in pieces leaves no buffer of its size behind once it is handed over.
    @Test func aLongSplitLineLeavesNoLargeBufferBehind() {
        var splitter = LineSplitter(maxLineBytes: 4 << 20)
        var lines: [Int] = []
        let half = [UInt8](repeating: 0x61, count: 1 << 20)
        half.withUnsafeBufferPointer { splitter.feed($0) { _ in } }
        (half + [0x0A]).withUnsafeBufferPointer {
            splitter.feed($0) { if case .line(let line) = $0 { lines.append(line.count) } }
        }
        #expect(lines == [2 << 20])
        #expect(splitter.heldCapacity < 4096)
    }

    @Test func carriageReturnsAndEmptyLinesAreDropped() {
        #expect(split(["x\r\n\n\ny\n"]) == [.line([UInt8(ascii: "x")]), .line([UInt8(ascii: "y")])])
    }

    @Test func oversizedLinesAreReportedAndSkippedWhole() {
        let long = String(repeating: "z", count: 30)
        #expect(split([long, long, "\nok\n"], max: 40) == [.oversized, .line(Array("ok".utf8))])
    }
}
