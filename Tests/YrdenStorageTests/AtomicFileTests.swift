import Foundation
import Synchronization
import Testing

@testable import YrdenStorage

@Suite struct AtomicFileTests {
    @Test func writesReadsAndReplaces() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("config.json")
        #expect(try AtomicFile.read(path) == nil)
        try AtomicFile.write(bytes(#"{"mcpServers": {"a": {}}}"#), to: path, mode: 0o644)
        #expect(try AtomicFile.read(path) == bytes(#"{"mcpServers": {"a": {}}}"#))
        try AtomicFile.write(bytes("{}"), to: path, mode: 0o644)
        #expect(try AtomicFile.read(path) == bytes("{}"))
        try AtomicFile.write([], to: path, mode: 0o644)
        #expect(try AtomicFile.read(path) == [])
        #expect(try scratch.entries() == ["config.json"])
    }

    @Test func aFileWrittenInPiecesHoldsThemInOrder() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("pins.json")
        try AtomicFile.write(bytes("old"), to: path, mode: 0o600)
        let pieces = (0..<50).map { [UInt8](repeating: UInt8(ascii: "a") + UInt8($0 % 26), count: 10_000) }
        var accepted: [Bool] = []
        try AtomicFile.write(to: path, mode: 0o600) { emit in
            for piece in pieces { accepted.append(emit(piece)) }
        }
        #expect(accepted == Array(repeating: true, count: pieces.count))
        #expect(try AtomicFile.read(path) == Array(pieces.joined()))
        #expect(try scratch.entries() == ["pins.json"])
    }

    @Test func leftoversOfDeadWritersAreRemovedAndLiveOnesKept() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("yrden.json")
        try AtomicFile.write(bytes("{}"), to: path, mode: 0o600)
        let dead = 4_000_000  // above the kernel's pid limit: no process has it
        let leftovers = [".yrden.json.tmp-\(dead)-1a2b", ".yrden.json.tmp-\(dead)-ffffffff"]
        let kept = [
            ".yrden.json.tmp-\(getpid())-77",  // a writer still running
            ".yrden.json.tmp-\(dead)-",  // not a name a write gives
            ".yrden.json.tmp-x-1",
            ".other.json.tmp-\(dead)-1",  // another file's
            "yrden.json.tmp-\(dead)-1",
        ]
        for name in leftovers + kept { try AtomicFile.write(bytes("{"), to: scratch.file(name), mode: 0o600) }
        let removed = try AtomicFile.removeLeftoverTemporaries(of: path)
        #expect(Set(removed) == Set(leftovers.map(scratch.file)))
        #expect(try scratch.entries() == (kept + ["yrden.json"]).sorted())
        #expect(try AtomicFile.removeLeftoverTemporaries(of: scratch.file("none/yrden.json")) == [])
    }

    @Test func fileHasTheRequestedMode() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try AtomicFile.write(bytes("token"), to: scratch.file("secret"), mode: 0o600)
        #expect(try permissions(scratch.file("secret")) == 0o600)
        // Replacing a file gives the new file the requested mode, not the old one's.
        try AtomicFile.write(bytes("public"), to: scratch.file("secret"), mode: 0o644)
        #expect(try permissions(scratch.file("secret")) == 0o644)
        try AtomicFile.write(bytes("token"), to: scratch.file("secret"), mode: 0o600)
        #expect(try permissions(scratch.file("secret")) == 0o600)
    }

    @Test func failedReplaceKeepsTheTargetAndLeavesNoTemporaryFile() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // A directory in the way: the temporary file is created and written, then rename(2) fails.
        let path = scratch.file("taken")
        try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
        do {
            try AtomicFile.write(bytes("new"), to: path, mode: 0o600)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .system(errno: EISDIR))
            #expect(error.message == "cannot replace \(path): Is a directory (errno 21)")
        }
        #expect(try scratch.entries() == ["taken"])
        #expect(try scratch.entries("taken") == ["inside"])
    }

    @Test func missingParentNamesThePathAndTheReason() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("missing/config.json")
        do {
            try AtomicFile.write(bytes("{}"), to: path, mode: 0o600)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .system(errno: ENOENT))
            #expect(error.message == "cannot create a temporary file for \(path): No such file or directory (errno 2)")
            #expect(error.fix == "check that the directory \(scratch.file("missing")) exists")
        }
        #expect(try scratch.entries() == [])
    }

    @Test(.enabled(if: geteuid() != 0, "root may write into a read-only directory"))
    func readOnlyDirectoryIsAnErrorWithNoTemporaryFile() throws {
        let scratch = try Scratch()
        defer {
            chmod(scratch.path, 0o700)
            scratch.remove()
        }
        try AtomicFile.write(bytes("old"), to: scratch.file("config.json"), mode: 0o644)
        chmod(scratch.path, 0o500)
        #expect(throws: StorageError.self) {
            try AtomicFile.write(bytes("new"), to: scratch.file("config.json"), mode: 0o644)
        }
        #expect(try AtomicFile.read(scratch.file("config.json")) == bytes("old"))
        #expect(try scratch.entries() == ["config.json"])
    }

    @Test func readIsBounded() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("big")
        try AtomicFile.write([UInt8](repeating: 1, count: 11), to: path, mode: 0o600)
        #expect(try AtomicFile.read(path, maxBytes: 11)?.count == 11)
        #expect(
            throws: StorageError(
                .tooLarge,
                message: "\(path) is larger than 10 bytes",
                fix: "check that the path names the right file"
            )
        ) {
            try AtomicFile.read(path, maxBytes: 10)
        }
    }

    @Test func readingADirectoryIsAnError() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        #expect(throws: StorageError.self) { try AtomicFile.read(scratch.path) }
    }

    @Test func symbolicLinkIsKeptAndItsTargetReplaced() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.file("real"), withIntermediateDirectories: true)
        try AtomicFile.write(bytes("old"), to: scratch.file("real/config.json"), mode: 0o644)
        try FileManager.default.createSymbolicLink(
            atPath: scratch.file("config.json"),
            withDestinationPath: "real/config.json"
        )
        try AtomicFile.write(bytes("new"), to: scratch.file("config.json"), mode: 0o644)
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: scratch.file("config.json")) == "real/config.json"
        )
        #expect(try AtomicFile.read(scratch.file("real/config.json")) == bytes("new"))
        #expect(try scratch.entries() == ["config.json", "real"])
        #expect(try scratch.entries("real") == ["config.json"])
    }

    @Test func removeReportsWhetherThereWasAFile() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try AtomicFile.write(bytes("x"), to: scratch.file("f"), mode: 0o600)
        #expect(try AtomicFile.remove(scratch.file("f")))
        #expect(try !AtomicFile.remove(scratch.file("f")))
        #expect(try scratch.entries() == [])
    }

    /// A reader racing a writer sees the old file or the new one, whole, every time. (That a `kill -9` mid-write
    /// leaves one of the two is the same property across a crash; the admin API tests check it on the gateway.)
    @Test func concurrentReaderNeverSeesAPartialFile() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("config.json")
        let large = [UInt8](repeating: UInt8(ascii: "L"), count: 200 * 1024)
        let small = [UInt8](repeating: UInt8(ascii: "s"), count: 3 * 1024)
        try AtomicFile.write(small, to: path, mode: 0o644)
        let writing = Flag(true)
        let readerStarted = Flag(false)
        let sawBoth = Flag(false)

        // The writer starts once the reader runs and goes on until the reader has seen both versions (or a
        // bound), so a loaded machine that schedules the reader late cannot make the race vacuous.
        let writer = Task.detached {
            defer { writing.value.store(false, ordering: .releasing) }
            while !readerStarted.value.load(ordering: .acquiring) { await Task.yield() }
            for round in 0..<20_000 {
                if round >= 400 && sawBoth.value.load(ordering: .acquiring) { break }
                try AtomicFile.write(round.isMultiple(of: 2) ? large : small, to: path, mode: 0o644)
            }
        }
        let reader = Task.detached {
            var seen = (large: 0, small: 0, other: 0)
            readerStarted.value.store(true, ordering: .releasing)
            while writing.value.load(ordering: .acquiring) {
                switch try AtomicFile.read(path) {
                case large: seen.large += 1
                case small: seen.small += 1
                default: seen.other += 1
                }
                if seen.large > 0 && seen.small > 0 { sawBoth.value.store(true, ordering: .releasing) }
            }
            return seen
        }
        try await writer.value
        let seen = try await reader.value
        #expect(seen.other == 0)
        #expect(seen.large > 0)
        #expect(seen.small > 0)
        #expect(try scratch.entries() == ["config.json"])
    }
}
