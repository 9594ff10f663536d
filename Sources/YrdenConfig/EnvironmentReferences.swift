import YrdenProtocol

/// A config string cut into literal text and `${VAR}` references, by the grammar ``EnvironmentExpansion``
/// expands.
///
/// Redaction needs it to show where a secret comes from without showing what is written, and the gateway
/// needs it to know which variables its own secrets come from. A `${…}` that is not a well-formed reference
/// (a bad name, no closing `}`) is literal text here: expansion refuses it, and showing it could show a secret.
package enum EnvironmentReferences {
    enum Piece: Hashable, Sendable {
        /// Text as written, `$$` included.
        case literal(String)
        /// `${name}`, or `${name:-fallback}` when `fallback` is not `nil`; `spelling` is what precedes the
        /// name, `"env:"` in the spelling of VS Code and Cursor (`${env:NAME}`), else empty.
        case reference(name: String, fallback: String?, spelling: String)
    }

    static func pieces(of text: String) -> [Piece] {
        let bytes = Array(text.utf8)
        var pieces: [Piece] = []
        var literalStart = 0
        var index = 0
        func closeLiteral(at end: Int) {
            if end > literalStart {
                pieces.append(.literal(String(decoding: bytes[literalStart..<end], as: UTF8.self)))
            }
        }
        while index + 1 < bytes.count {
            guard bytes[index] == UInt8(ascii: "$") else {
                index += 1
                continue
            }
            if bytes[index + 1] == UInt8(ascii: "$") {
                index += 2
                continue
            }
            guard bytes[index + 1] == UInt8(ascii: "{"),
                let close = bytes[(index + 2)...].firstIndex(of: UInt8(ascii: "}"))
            else {
                index += 1
                continue
            }
            var body = String(decoding: bytes[(index + 2)..<close], as: UTF8.self)
            let spelling = body.hasPrefix(Self.hostSpelling) ? Self.hostSpelling : ""
            body.removeFirst(spelling.count)
            let marker = body.firstRange(of: ":-")
            let name = marker.map { body[..<$0.lowerBound] } ?? body[...]
            guard EnvironmentExpansion.isValidName(name) else {
                index += 1
                continue
            }
            closeLiteral(at: index)
            let fallback = marker.map { String(body[$0.upperBound...]) }
            pieces.append(.reference(name: String(name), fallback: fallback, spelling: spelling))
            index = close + 1
            literalStart = index
        }
        closeLiteral(at: bytes.count)
        return pieces
    }

    private static let hostSpelling = "env:"

    /// The names `text` refers to, in order of appearance.
    package static func names(in text: String) -> [String] {
        pieces(of: text).compactMap { piece in
            if case .reference(let name, _, _) = piece { return name }
            return nil
        }
    }

    /// The names every string inside `value` refers to, each once, in order of appearance: what a config entry
    /// needs from the environment of the gateway that expands it.
    package static func names(in value: JSONValue) -> [String] {
        var found: [String] = []
        func collect(_ value: JSONValue) {
            if let text = value.stringValue {
                for name in names(in: text) where !found.contains(name) { found.append(name) }
            } else if let array = value.arrayValue {
                array.forEach(collect)
            } else if let object = value.objectValue {
                for (_, item) in object { collect(item) }
            }
        }
        collect(value)
        return found
    }
}
