import Testing
import YrdenProtocol

@testable import YrdenAudit

/// The chain a trail's lines carry: what `yrden audit verify` finds when a line is edited, removed or moved.
@Suite struct AuditChainTests {
    /// Five linked lines of a new trail.
    private func trail(_ count: Int = 5) -> [[UInt8]] {
        var chain = AuditChain()
        return (1...count).map { chain.link(["kind": "mcp", "tool": .string("echo"), "n": .int($0)]) }
    }

    private func verify(_ lines: [[UInt8]]) -> AuditVerifier.Break? {
        var verifier = AuditVerifier()
        return verifier.check(contents: joined(lines), file: "audit.jsonl")
    }

    @Test func aTrailAsWrittenHolds() throws {
        let lines = trail()
        #expect(verify(lines) == nil)
        let first = try JSONValue.parse(lines[0])
        #expect(first["seq"] == .int(1))
        #expect(first["prev"]?.stringValue == AuditChain.genesis)
        #expect(try JSONValue.parse(lines[1])["prev"]?.stringValue == AuditChain.hash(lines[0]))
    }

    @Test func anEditedLineIsFoundByTheLineAfterIt() throws {
        var lines = trail()
        lines[2] = Array(String(decoding: lines[2], as: UTF8.self).replacing("echo", with: "wipe").utf8)
        let broken = try #require(verify(lines))
        #expect(broken.line == 4)
        #expect(broken.reason.contains("audit.jsonl:3"))
        #expect(broken.reason.contains("edited"))
    }

    @Test func aRemovedLineIsFoundWhereTheNumbersJump() throws {
        var lines = trail()
        lines.remove(at: 1)
        let broken = try #require(verify(lines))
        #expect(broken.line == 2)
        #expect(broken.reason.contains("1 line was removed"))
    }

    @Test func swappedLinesAreFound() throws {
        var lines = trail()
        lines.swapAt(1, 2)
        let broken = try #require(verify(lines))
        #expect(broken.line == 2)
    }

    @Test func aLineThatIsNotJSONOrCutShortIsFound() throws {
        var lines = trail()
        lines[3] = Array(lines[3].prefix(20))
        #expect(try #require(verify(lines)).line == 4)
        var verifier = AuditVerifier()
        let cut = joined(trail()).dropLast(5)
        let result = verifier.check(contents: Array(cut), file: "audit.jsonl")
        let broken = try #require(result)
        #expect(broken.line == 5)
        #expect(broken.reason.contains("no line break"))
    }

    @Test func aReplacedFirstLineIsFound() throws {
        var lines = trail()
        var forged = AuditChain()
        _ = forged.link(["kind": "forged"])
        lines[0] = forged.link(["kind": "forged"])
        // The forged line claims seq 2 at the start: the start is said to be elsewhere, and line 2 does not link.
        let broken = try #require(verify(lines))
        #expect(broken.line == 2)
    }

    @Test func theChainGoesOnAcrossFilesGivenOldestFirst() throws {
        let lines = trail(6)
        var verifier = AuditVerifier()
        let older = verifier.check(contents: joined(Array(lines[..<3])), file: "audit.jsonl.1")
        #expect(older == nil)
        let newer = verifier.check(contents: joined(Array(lines[3...])), file: "audit.jsonl")
        #expect(newer == nil)
        #expect(verifier.count == 6)
        var alone = AuditVerifier()
        let aloneResult = alone.check(contents: joined(Array(lines[3...])), file: "audit.jsonl")
        #expect(aloneResult == nil)
        #expect(alone.firstSeq == 4, "a file whose start was rotated away is checked from its first line")
    }

    @Test func aChainContinuesAfterTheLastLineOfAnEarlierRun() throws {
        let lines = trail(3)
        var chain = try #require(AuditChain(continuingAfter: lines[2]))
        let next = chain.link(["kind": "admin"])
        #expect(verify(lines + [next]) == nil)
        #expect(try JSONValue.parse(next)["seq"] == .int(4))
    }
}
