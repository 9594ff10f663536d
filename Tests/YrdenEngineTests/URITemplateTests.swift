import Testing
import YrdenTesting

@testable import YrdenEngine

/// The template match decides which server reads a client's URI, on the loop thread: it must agree with the
/// plain recursive reading of the rules on ordinary input, and finish in one pass on input built to make a
/// backtracking match take forever.
@Suite struct URITemplateTests {
    @Test func ordinaryTemplatesMatchAsBefore() {
        let docs = URITemplate("docs://{+base}/{+path}.md")
        #expect(docs.matches("docs://guide/intro.md"))
        #expect(docs.matches("docs://a/b/c/d.md"))
        #expect(!docs.matches("docs://intro.md"))
        #expect(!docs.matches("docs://a/b.txt"))
        #expect(!docs.matches("docs:///.md"))
        #expect(URITemplate("file:///{+path}").matches("file:///a/b/c.txt"))
        #expect(!URITemplate("file:///{+path}").matches("file:///"))
        #expect(URITemplate("db://{table}/rows/{id}").matches("db://users/rows/7"))
        #expect(!URITemplate("db://{table}/rows/{id}").matches("db://users/rows/7/8"))
        #expect(URITemplate("page://{id}{#section}").matches("page://7#top"))
        #expect(URITemplate("q://{name}{?page}").matches("q://x?page=2"))
        #expect(URITemplate("ui://{app}/{view}").matches("ui://déjà/vu"))
        #expect(URITemplate("odd://{unclosed").matches("odd://{unclosed"))
        #expect(URITemplate("").matches(""))
        #expect(!URITemplate("").matches("x"))
    }

    /// Every split of short URIs over a small alphabet, checked against the recursive definition.
    @Test func agreesWithTheRecursiveDefinition() async {
        // 12,000 matches, each also by the exponential reference: on the heavy-work thread, not the pool's.
        let disagreements = await offThePool { () -> [String] in
            let templates = [
                "a{x}b", "a{+x}b", "{+x}/{+y}", "{x}/{y}", "{+x}{+y}", "{x}{+y}/", "/{x}", "a/{+x}.b{y}", "{#x}b{x}",
            ]
            let alphabet: [Character] = ["a", "b", "/", "."]
            var uris = [""]
            var longest = [""]
            for _ in 0..<5 {
                longest = longest.flatMap { uri in alphabet.map { uri + String($0) } }
                uris += longest
            }
            return templates.flatMap { template in
                let compiled = URITemplate(template)
                return uris.filter { compiled.matches($0) != Reference.matches(template, $0) }
                    .map { "\(template) against \($0)" }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }

    /// 20 KB of slashes froze the gateway for 40 s under the recursive match; 64 KB, which any match slower
    /// than linear would take minutes over (past the time limit), must simply finish. A megabyte took 10 s of
    /// a debug build's CPU and held a thread of the tests' pool all that time; run on a thread of its own.
    @Test(.timeLimit(.minutes(1))) func reservedExpressionsOverSlashesFinishInOnePass() async {
        let size = 1 << 16
        let wrong = await offThePool { () -> [String] in
            let docs = URITemplate("docs://{+base}/{+path}.md")
            let slashes = String(repeating: "/", count: size)
            let five = URITemplate("x://{+a}{+b}{+c}{+d}{+e}!")
            let segments = URITemplate("s://{a}{b}{c}{d}/{+e}/z")
            let answers = [
                "slashes without .md": !docs.matches("docs://" + slashes),
                "slashes then .md": docs.matches("docs://" + slashes + ".md"),
                "101 a without !": !five.matches("x://" + String(repeating: "a", count: 101)),
                "64 KB of a without !": !five.matches("x://" + String(repeating: "a", count: size)),
                "64 KB of a then !": five.matches("x://" + String(repeating: "a", count: size) + "!"),
                "segments without /": !segments.matches("s://" + String(repeating: "ab", count: size / 2)),
            ]
            return answers.filter { !$0.value }.map(\.key).sorted()
        }
        #expect(wrong.isEmpty, "answered wrong: \(wrong)")
    }
}

/// The rules as the gateway's first matcher read them, recursively (exponential, so for short input only).
private enum Reference {
    enum Piece {
        case literal(Substring)
        case segment
        case rest
    }

    static func matches(_ template: String, _ uri: String) -> Bool {
        var pieces: [Piece] = []
        var remainder = Substring(template)
        while let open = remainder.firstIndex(of: "{") {
            if open > remainder.startIndex { pieces.append(.literal(remainder[..<open])) }
            guard let close = remainder[open...].firstIndex(of: "}") else {
                pieces.append(.literal(remainder[open...]))
                remainder = ""
                break
            }
            let expression = remainder[remainder.index(after: open)..<close]
            pieces.append(expression.first == "+" || expression.first == "#" ? .rest : .segment)
            remainder = remainder[remainder.index(after: close)...]
        }
        if !remainder.isEmpty { pieces.append(.literal(remainder)) }
        return match(pieces[...], Substring(uri))
    }

    private static func match(_ pieces: ArraySlice<Piece>, _ text: Substring) -> Bool {
        guard let first = pieces.first else { return text.isEmpty }
        let rest = pieces.dropFirst()
        switch first {
        case .literal(let literal):
            return text.hasPrefix(literal) && match(rest, text.dropFirst(literal.count))
        case .rest:
            if rest.isEmpty { return !text.isEmpty }
            var end = text.endIndex
            while end > text.startIndex {
                if match(rest, text[end...]) { return true }
                end = text.index(before: end)
            }
            return false
        case .segment:
            var end = text.startIndex
            while end < text.endIndex, text[end] != "/" {
                end = text.index(after: end)
                if match(rest, text[end...]) { return true }
            }
            return false
        }
    }
}
