import Foundation
import Testing

@testable import YrdenStorage

/// A writer never leaves a file its reader refuses, and a reader never waits on something that is not a file.
@Suite struct AtomicFileBoundTests {
    @Test func aWriteThatWouldPassItsBoundKeepsTheFileAsItWas() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("pins.json")
        try AtomicFile.write(Array("old".utf8), to: path, mode: 0o600)
        var accepted: [Bool] = []
        #expect {
            try AtomicFile.write(to: path, mode: 0o600, maxBytes: 25_000) { emit in
                for _ in 0..<4 { accepted.append(emit([UInt8](repeating: 0x61, count: 10_000))) }
            }
        } throws: { error in
            (error as? StorageError)?.kind == .tooLarge
                && "\(error)".contains("would be larger than 25000 bytes")
        }
        #expect(accepted == [true, true, false, false])
        #expect(try AtomicFile.read(path) == Array("old".utf8))
        #expect(try scratch.entries() == ["pins.json"], "no temporary file is left")
    }

    @Test func aFIFOIsRefusedAtOnceWhereOnlyARegularFileWillDo() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("pins.json")
        #expect(mkfifo(path, 0o600) == 0)
        #expect {
            _ = try AtomicFile.read(path, regularFileOnly: true)
        } throws: { error in
            "\(error)".contains("\(path) is not a regular file")
        }
        #expect {
            _ = try AtomicFile.read(scratch.path, regularFileOnly: true)
        } throws: { error in
            "\(error)".contains("is not a regular file")
        }
    }
}
