import Testing
import YrdenProtocol

@testable import YrdenAudit

/// The writer: lines chained across rotations and restarts, bounded files, values capped.
@Suite struct AuditTrailTests {
    @Test func recordsAreWrittenAsAChainThatVerifies() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let trail = try AuditTrail(path: scratch.file("audit.jsonl"), maxBytes: 1 << 20, keep: 3)
        for index in 0..<10 { trail.record(["kind": "mcp", "n": .int(index)]) }
        trail.flush()
        let written = try scratch.read("audit.jsonl")
        #expect(lines(written).count == 10)
        var verifier = AuditVerifier()
        let result = verifier.check(contents: written, file: "audit.jsonl")
        #expect(result == nil)
        let first = try JSONValue.parse(lines(written)[0])
        #expect(first["time"]?.stringValue?.hasSuffix("Z") == true)
        #expect(first["n"] == .int(0))
    }

    @Test func rotationKeepsFilesBoundedAndTheChainWhole() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var file = AuditFile(path: scratch.file("audit.jsonl"), maxBytes: 1_000, keep: 2)
        var chain = try file.open()
        for batch in 0..<10 {
            let lines = (0..<5).map { chain.link(["kind": "mcp", "batch": .int(batch), "n": .int($0)]) + [10] }
            try file.append(lines)
        }
        file.close()
        #expect(try scratch.entries() == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"])
        var verifier = AuditVerifier()
        for name in ["audit.jsonl.2", "audit.jsonl.1", "audit.jsonl"] {
            let contents = try scratch.read(name)
            #expect(contents.count <= 1_000, "\(name) is \(contents.count) bytes")
            let result = verifier.check(contents: contents, file: name)
            #expect(result == nil)
        }
        #expect(verifier.firstSeq ?? 0 > 1, "the oldest files were deleted")
        #expect(verifier.count > 5)
    }

    @Test func aRestartContinuesTheChainAndALineCutShortStaysVisible() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("audit.jsonl")
        var file = AuditFile(path: path, maxBytes: 1 << 20, keep: 1)
        var chain = try file.open()
        try file.append((0..<3).map { chain.link(["n": .int($0)]) + [10] })
        file.close()
        var again = AuditFile(path: path, maxBytes: 1 << 20, keep: 1)
        var continued = try again.open()
        #expect(continued.seq == 3)
        try again.append([continued.link(["n": 3]) + [10]])
        again.close()
        var verifier = AuditVerifier()
        let result = verifier.check(contents: try scratch.read("audit.jsonl"), file: "audit.jsonl")
        #expect(result == nil)
        #expect(verifier.count == 4)

        // A stop in the middle of a write: the piece stays a line of its own, which verify reports.
        try scratch.write(try scratch.read("audit.jsonl") + Array(#"{"seq":5,"ti"#.utf8), to: "audit.jsonl")
        var third = AuditFile(path: path, maxBytes: 1 << 20, keep: 1)
        var afterCut = try third.open()
        try third.append([afterCut.link(["n": 5]) + [10]])
        third.close()
        var checker = AuditVerifier()
        let checked = checker.check(contents: try scratch.read("audit.jsonl"), file: "audit.jsonl")
        let broken = try #require(checked)
        #expect(broken.line == 5)
    }

    @Test func longValuesAreCutSoALineStaysSmall() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let trail = try AuditTrail(path: scratch.file("audit.jsonl"), maxBytes: 1 << 20, keep: 1)
        trail.record(["tool": .string(String(repeating: "x", count: 100_000))])
        trail.flush()
        let written = try scratch.read("audit.jsonl")
        #expect(written.count < 1_000)
    }

    @Test func aFileThatCannotBeOpenedIsSaidAtTheStart() throws {
        #expect(throws: AuditFileError.self) {
            _ = try AuditTrail(path: "/nonexistent-dir-yrden/audit.jsonl", maxBytes: 1 << 20, keep: 1)
        }
    }
}

/// A full queue loses records, never waits: the trail says how many in a line of its own, in the chain.
@Suite struct AuditTrailQueueTests {
    @Test func recordsThatFindTheQueueFullAreLostAndTheTrailSaysSo() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let trail = try AuditTrail(path: scratch.file("audit.jsonl"), maxBytes: 1 << 20, keep: 1, queueBound: 3)
        for index in 0..<5 { trail.record(["kind": "mcp", "n": .int(index)]) }
        #expect(trail.waiting == 3)
        try trail.startWriter()
        trail.flush()
        let written = try scratch.read("audit.jsonl")
        let parsed = try lines(written).map { try JSONValue.parse($0) }
        #expect(parsed.count == 4)
        #expect(parsed[0]["kind"] == "lost" && parsed[0]["count"] == .int(2) && parsed[0]["reason"] == "queue_full")
        #expect(parsed[1...].map { $0["n"] } == [.int(0), .int(1), .int(2)])
        var verifier = AuditVerifier()
        let result = verifier.check(contents: written, file: "audit.jsonl")
        #expect(result == nil)
    }
}
