import ArgumentParser
import Glibc
import YrdenAudit

/// `yrden audit verify FILE...`: checks an audit trail's hash chain and says where it breaks.
struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Check the audit trail a gateway writes (\"audit\": {\"file\": ...}).",
        subcommands: [Verify.self]
    )

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Check an audit trail's chain: exit 0 when it holds, 1 with where it breaks.",
            discussion: """
                Give the rotated files oldest first to check the links between them too: \
                yrden audit verify audit.jsonl.2 audit.jsonl.1 audit.jsonl. A removed or edited line is found by \
                the line after it; the trail's last line has none after it, so a trail cut short at its end \
                cannot be told from one that ends there.
                """
        )

        @Argument(help: "The trail's files, oldest first.")
        var files: [String]

        func run() throws {
            var verifier = AuditVerifier()
            var standardError = StandardError()
            for file in files {
                do {
                    if let broken = try Self.check(file, with: &verifier) {
                        print("\(broken)", to: &standardError)
                        print(
                            "audit verify: the chain breaks at \(broken.file) line \(broken.line)",
                            to: &standardError
                        )
                        throw ExitCode(1)
                    }
                } catch let error as AuditReadError {
                    print("audit verify: \(error.message)", to: &standardError)
                    throw ExitCode(1)
                }
            }
            let first = verifier.firstSeq ?? 0
            let last = first + Int64(verifier.count) - 1
            guard verifier.count > 0 else { return print("audit verify: ok, no lines") }
            var summary =
                "audit verify: ok, \(verifier.count) line\(verifier.count == 1 ? "" : "s") (seq \(first)–\(last))"
            if first > 1 {
                summary += "; the trail starts before these files (seq 1 to \(first - 1) are in older files, not given)"
            }
            print(summary)
        }

        /// Feeds `file` to `verifier` a megabyte at a time; the first break, if any.
        static func check(_ file: String, with verifier: inout AuditVerifier) throws -> AuditVerifier.Break? {
            let descriptor = open(file, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw AuditReadError(file, errno: errno) }
            defer { close(descriptor) }
            var carry: [UInt8] = []
            var number = 1
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw AuditReadError(file, errno: errno)
                }
                if count == 0 { break }
                carry += chunk[..<count]
                guard let lastBreak = carry.lastIndex(of: UInt8(ascii: "\n")) else { continue }
                let whole = Array(carry[...lastBreak])
                carry.removeSubrange(...lastBreak)
                if let broken = verifier.check(contents: whole, file: file, firstLineNumber: number) { return broken }
                number += whole.count { $0 == UInt8(ascii: "\n") }
            }
            return verifier.check(contents: carry, file: file, firstLineNumber: number)
        }
    }
}

/// A trail file that cannot be read.
struct AuditReadError: Error {
    let message: String

    init(_ file: String, errno code: Int32) {
        message = "cannot read \(file): \(String(cString: strerror(code))) (errno \(code))"
    }
}
