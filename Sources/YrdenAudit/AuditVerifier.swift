import YrdenProtocol

/// Checks an audit trail's chain (see ``AuditChain``) line by line, across the files it was rotated into
/// (given oldest first), and says where it first breaks: the file, the line number, and what is wrong.
/// Pure: the caller reads the files and hands over their lines.
package struct AuditVerifier: Sendable {
    /// Where the chain breaks and why.
    package struct Break: Error, Sendable, Hashable, CustomStringConvertible {
        package var file: String
        /// 1-based, in `file`.
        package var line: Int
        package var reason: String

        package var description: String { "\(file):\(line): \(reason)" }
    }

    /// A line checked, as the next one's link is checked against.
    private struct Checked: Sendable {
        var seq: Int64
        var hash: String
        var file: String
        var line: Int
    }

    private var last: Checked?
    /// Lines checked so far.
    package private(set) var count = 0
    /// The `seq` of the first line given: above 1 when the trail's start is in files not given (rotated away).
    package private(set) var firstSeq: Int64?

    package init() {}

    /// Checks the next line (without its line break) of `file`, numbered `number` there.
    package mutating func check(_ line: some Collection<UInt8>, file: String, number: Int) -> Break? {
        func broken(_ reason: String) -> Break { Break(file: file, line: number, reason: reason) }
        guard case .object(let object)? = try? JSONValue.parse(line) else {
            return broken("not a JSON object: the line was altered, or a write was cut short")
        }
        guard let seqValue = object["seq"]?.intValue, seqValue > 0 else {
            return broken("no \"seq\" (a whole number from 1): not a line of an audit trail, or it was altered")
        }
        let seq = Int64(seqValue)
        guard let prev = object["prev"]?.stringValue, Self.isDigest(prev) else {
            return broken("no \"prev\" (64 hex digits): the line was altered")
        }
        defer { count += 1 }
        guard let last else {
            firstSeq = seq
            if seq == 1, prev != AuditChain.genesis {
                return broken("the trail's first line (seq 1) does not start the chain: its prev should be zeros")
            }
            self.last = Checked(seq: seq, hash: AuditChain.hash(line), file: file, line: number)
            return nil
        }
        if seq != last.seq + 1 {
            if seq > last.seq + 1 {
                let missing = seq - last.seq - 1
                return broken(
                    "seq \(seq) follows seq \(last.seq) (\(last.file):\(last.line)): \(missing) line"
                        + "\(missing == 1 ? " was" : "s were") removed before this one"
                )
            }
            return broken(
                "seq \(seq) follows seq \(last.seq) (\(last.file):\(last.line)): lines were repeated or reordered"
            )
        }
        guard prev == last.hash else {
            return broken(
                "its prev is not the hash of the line before it (\(last.file):\(last.line)): that line was "
                    + "edited, or replaced"
            )
        }
        self.last = Checked(seq: seq, hash: AuditChain.hash(line), file: file, line: number)
        return nil
    }

    /// Checks a whole file's bytes, line by line; a last line without its line break is a break (a write cut
    /// short, or the file truncated in the middle of a line).
    package mutating func check(contents: [UInt8], file: String, firstLineNumber: Int = 1) -> Break? {
        var number = firstLineNumber
        var start = contents.startIndex
        while start < contents.endIndex {
            guard let end = contents[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                return Break(
                    file: file,
                    line: number,
                    reason: "the last line has no line break: a write was cut short, or the file was truncated"
                )
            }
            if let broken = check(contents[start..<end], file: file, number: number) { return broken }
            number += 1
            start = end + 1
        }
        return nil
    }

    private static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64
            && text.utf8.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }
}
