/// Just enough of RFC 6570 to tell whether a URI could come from a template: literal text must match, a
/// `{var}` matches one path segment, and `{+var}`, `{#var}` or a trailing expression match the rest.
package struct URITemplate: Sendable, Hashable {
    package let pattern: String

    private enum Piece: Hashable {
        case literal(Substring)
        case segment
        case rest
    }

    private let pieces: [Piece]

    package init(_ pattern: String) {
        self.pattern = pattern
        var pieces: [Piece] = []
        var remainder = Substring(pattern)
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
        self.pieces = pieces
    }

    package func matches(_ uri: String) -> Bool {
        Self.match(pieces[...], Substring(uri))
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
