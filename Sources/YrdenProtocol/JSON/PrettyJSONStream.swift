/// Indented JSON written member by member, in the layout of ``JSONValue/prettySerialized(indent:)``, for a
/// document too large to build whole: the caller builds one member at a time and takes the bytes written so
/// far whenever it likes, so neither the whole tree nor the whole text is ever in memory (the pin file of
/// 10,000 tools is megabytes of both).
package struct PrettyJSONStream {
    private var output: [UInt8] = []
    /// For each object still open, whether it has a member yet.
    private var openObjects: [Bool] = []
    private let indent: Int

    package init(indent: Int = 2) {
        self.indent = max(indent, 0)
    }

    /// How many bytes wait to be taken.
    package var pendingBytes: Int { output.count }

    /// Opens an object: the document itself without `key`, a member of the innermost open object with it.
    package mutating func openObject(_ key: String? = nil) {
        if let key { startMember(key) }
        output.append(UInt8(ascii: "{"))
        openObjects.append(false)
    }

    /// Writes member `key` of the innermost open object.
    package mutating func member(_ key: String, _ value: JSONValue) {
        startMember(key)
        value.writePretty(into: &output, indent: indent, depth: openObjects.count)
    }

    /// Writes member `key` of the innermost open object with `text` as its value, as it is: JSON this stream
    /// wrote at the same depth before (a pinned definition copied from the pin file without parsing it).
    package mutating func member(_ key: String, text: [UInt8]) {
        startMember(key)
        output.append(contentsOf: text)
    }

    /// Closes the innermost open object; closing the document's adds its final newline.
    package mutating func closeObject() {
        guard let hadMembers = openObjects.popLast() else { return }
        if hadMembers { JSONValue.startLine(into: &output, spaces: indent * openObjects.count) }
        output.append(UInt8(ascii: "}"))
        if openObjects.isEmpty { output.append(0x0A) }
    }

    /// The bytes written since the last take.
    package mutating func take() -> [UInt8] {
        defer { output.removeAll(keepingCapacity: true) }
        return output
    }

    private mutating func startMember(_ key: String) {
        guard let hadMembers = openObjects.last else { return }
        if hadMembers { output.append(UInt8(ascii: ",")) }
        openObjects[openObjects.count - 1] = true
        JSONValue.startLine(into: &output, spaces: indent * openObjects.count)
        JSONValue.string(key).write(into: &output)
        output.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
    }
}
