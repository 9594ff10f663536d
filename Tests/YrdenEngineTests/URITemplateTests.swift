import Testing

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
    @Test func agreesWithTheRecursiveDefinition() {
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
        for template in templates {
            let compiled = URITemplate(template)
            for uri in uris {
                #expect(compiled.matches(uri) == Reference.matches(template, uri), "\(template) against \(uri)")
            }
        }
    }

    /// 20 KB of slashes froze the gateway for 40 s under the recursive match; a megabyte must simply finish.
    @Test func reservedExpressionsOverSlashesFinishInOnePass() {
        let docs = URITemplate("docs://{+base}/{+path}.md")
        let slashes = String(repeating: "/", count: 1 << 20)
        #expect(!docs.matches("docs://" + slashes))
        #expect(docs.matches("docs://" + slashes + ".md"))
        let five = URITemplate("x://{+a}{+b}{+c}{+d}{+e}!")
        #expect(!five.matches("x://" + String(repeating: "a", count: 101)))
        #expect(!five.matches("x://" + String(repeating: "a", count: 1 << 20)))
        #expect(five.matches("x://" + String(repeating: "a", count: 1 << 20) + "!"))
        let segments = URITemplate("s://{a}{b}{c}{d}/{+e}/z")
        #expect(!segments.matches("s://" + String(repeating: "ab", count: 1 << 19)))
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
