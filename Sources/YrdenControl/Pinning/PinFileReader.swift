import YrdenEngine
import YrdenProtocol

/// Reads the pin book from the pin file's bytes as ``PinBook/json`` writes it, keeping each definition in the
/// file (``StoredPinDefinition``): parsed once to compute its digest and size, then dropped. What is held is
/// the book's digests and where each definition lies, not 10,000 parsed definitions.
struct PinFileReader {
    let file: PinFile
    let spans: JSONSpans

    init(file: PinFile, bytes: [UInt8]) {
        self.file = file
        spans = JSONSpans(bytes: bytes)
    }

    func book() throws(JSONSpans.Malformed) -> PinBook {
        guard let top = try spans.members(of: try spans.document()) else { throw malformed("it is not an object") }
        var version: Int?
        var serverObject: Range<Int>?
        for (key, range) in top {
            let value = try spans.value(range)  // every value is checked, the ones skipped too
            switch key {
            case "version": version = value.intValue
            case "servers": serverObject = value.objectValue == nil ? nil : range
            default: break
            }
        }
        guard version == PinBook.formatVersion else { throw malformed("its version is not \(PinBook.formatVersion)") }
        guard let serverObject, let servers = try spans.members(of: serverObject) else {
            throw malformed("it has no \"servers\" object")
        }
        var book: [String: [String: PinBook.Pin]] = [:]
        for (server, range) in servers {
            guard let tools = try spans.members(of: range) else {
                throw malformed("servers.\(server) is not an object")
            }
            var pins: [String: PinBook.Pin] = [:]
            for (tool, entry) in tools {
                pins[tool] = try pin(entry, at: "servers.\(server).\(tool)")
            }
            book[server] = pins
        }
        return PinBook(servers: book)
    }

    private func pin(_ range: Range<Int>, at path: String) throws(JSONSpans.Malformed) -> PinBook.Pin {
        guard let members = try spans.members(of: range) else { throw malformed("\(path) is not an object") }
        var pinned: ToolDefinition?
        var pending: ToolDefinition?
        var times: [String: Double] = [:]
        for (key, range) in members {
            switch key {
            case "pinned": pinned = try definition(range)
            case "pending":
                guard let definition = try definition(range) else {
                    throw malformed("\(path).pending is not an object")
                }
                pending = definition
            default:
                let value = try spans.value(range)
                if let seconds = value.doubleValue { times[key] = seconds }
            }
        }
        guard let pinned, let pinnedAt = times["pinnedAt"] else {
            throw malformed("\(path) lacks \"pinned\" or \"pinnedAt\"")
        }
        return PinBook.Pin(
            pinned: pinned,
            pinnedAt: pinnedAt,
            pending: pending,
            changedAt: pending == nil ? nil : times["changedAt"] ?? pinnedAt,
            unlistedAt: times["unlistedAt"]
        )
    }

    /// The definition at `range`, kept in the file; `nil` when it is not an object.
    private func definition(_ range: Range<Int>) throws(JSONSpans.Malformed) -> ToolDefinition? {
        guard let object = try spans.value(range).objectValue else { return nil }
        let read = ToolDefinition(tool: object)
        return ToolDefinition(
            stored: StoredPinDefinition(file: file, offset: range.lowerBound, count: range.count, name: read.name),
            sha256: read.sha256,
            canonicalBytes: read.canonicalBytes
        )
    }

    private func malformed(_ reason: String) -> JSONSpans.Malformed {
        JSONSpans.Malformed(description: reason)
    }
}
