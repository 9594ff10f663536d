/// Just enough of RFC 6570 to tell whether a URI could come from a template: literal text must match, a
/// `{var}` (any operator but `+` and `#`) matches one or more characters of one path segment, and `{+var}` or
/// `{#var}` one or more of any character.
///
/// Matched in linear time, as one left-to-right pass over the URI's UTF-8 with the set of template positions
/// it could be at (a Thompson NFA): O(URI length × template length), never backtracking. Templates come from
/// upstreams and URIs from clients, and the match runs on the loop thread: the recursive match it replaces took
/// O(nᵏ) for k reserved expressions, 40 s for `docs://{+base}/{+path}.md` and a URI of 20,000 slashes.
package struct URITemplate: Sendable, Hashable {
    package let pattern: String

    /// One step of the template: a literal byte, or an expression that repeats (one or more of its bytes).
    private enum Atom: Hashable {
        case byte(UInt8)
        /// `{var}`: a byte other than `/`, one or more times.
        case segment
        /// `{+var}`, `{#var}`: any byte, one or more times.
        case rest

        var repeats: Bool {
            if case .byte = self { false } else { true }
        }

        func accepts(_ byte: UInt8) -> Bool {
            switch self {
            case .byte(let literal): byte == literal
            case .segment: byte != UInt8(ascii: "/")
            case .rest: true
            }
        }
    }

    private let atoms: [Atom]

    package init(_ pattern: String) {
        self.pattern = pattern
        var atoms: [Atom] = []
        var remainder = Substring(pattern).utf8
        while let open = remainder.firstIndex(of: UInt8(ascii: "{")) {
            atoms += remainder[..<open].map(Atom.byte)
            guard let close = remainder[open...].firstIndex(of: UInt8(ascii: "}")) else {
                remainder = remainder[open...]
                break
            }
            let operatorByte = remainder[remainder.index(after: open)...].first
            atoms.append(operatorByte == UInt8(ascii: "+") || operatorByte == UInt8(ascii: "#") ? .rest : .segment)
            remainder = remainder[remainder.index(after: close)...]
        }
        atoms += remainder.map(Atom.byte)
        self.atoms = atoms
    }

    package func matches(_ uri: String) -> Bool {
        var uri = uri
        return uri.withUTF8(match)
    }

    /// The simulation: state `k` means the first `k` atoms are matched and, when atom `k − 1` repeats, it may
    /// take more. Each byte moves every state at most two ways, so a pass costs O(atoms) per byte.
    private func match(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let end = atoms.count
        var current = [0]
        var next: [Int] = []
        current.reserveCapacity(end + 1)
        next.reserveCapacity(end + 1)
        // The byte position at which each state was last added to `next`: no state is listed twice.
        var addedAt = [Int](repeating: -1, count: end + 1)
        for (position, byte) in text.enumerated() {
            next.removeAll(keepingCapacity: true)
            for state in current {
                if state > 0, atoms[state - 1].repeats, atoms[state - 1].accepts(byte), addedAt[state] != position {
                    addedAt[state] = position
                    next.append(state)
                }
                if state < end, atoms[state].accepts(byte), addedAt[state + 1] != position {
                    addedAt[state + 1] = position
                    next.append(state + 1)
                }
            }
            if next.isEmpty { return false }
            swap(&current, &next)
        }
        return current.contains(end)
    }
}
