import YrdenEngine
import YrdenProtocol
import YrdenStorage

/// `tool-pins.journal`: approvals saved since the pin file was last written whole, one JSON line each
/// (`{"server": …, "tool": …, "digest": …, "pinnedAt": …}`), appended and flushed before the approvals are
/// answered.
///
/// A line cut short at the end (the process died while appending it) is not read: its approval was never
/// answered. Any other line that is not one is an error, as a pin file that is not one is.
package struct PinJournal: Sendable {
    package let path: String
    /// What a start reads: ``ToolPins/maxJournaled`` lines of a few hundred bytes each are far less.
    static let maxBytes = 16 * 1024 * 1024

    package func append(_ approvals: [PinApproval]) throws(StorageError) {
        var bytes: [UInt8] = []
        for approval in approvals {
            let line: JSONValue = [
                "server": .string(approval.server), "tool": .string(approval.tool),
                "digest": .string(approval.digest), "pinnedAt": .double(approval.pinnedAt),
            ]
            bytes += Array(line.jsonText.utf8)
            bytes.append(0x0A)
        }
        try AtomicFile.appendDurably(bytes, to: path, mode: 0o600)
    }

    /// The approvals in the journal, in the order made; none when there is no journal.
    package func read() throws(StorageError) -> [PinApproval] {
        guard let bytes = try AtomicFile.read(path, maxBytes: Self.maxBytes, regularFileOnly: true) else { return [] }
        var approvals: [PinApproval] = []
        var lineStart = 0
        while let newline = bytes[lineStart...].firstIndex(of: 0x0A) {
            let line = bytes[lineStart..<newline]
            lineStart = newline + 1
            guard let approval = Self.approval(line) else {
                throw StorageError(
                    .malformed,
                    message:
                        "\(path) holds a line that is not an approval: \(String(decoding: line.prefix(200), as: UTF8.self))",
                    fix: "remove the journal (the approvals made since the pin file was last written whole are then "
                        + "lost, and their tools wait for approval again)"
                )
            }
            approvals.append(approval)
        }
        return approvals
    }

    /// Removes the journal, once the pin file holds its approvals.
    package func remove() throws(StorageError) {
        try AtomicFile.remove(path)
    }

    private static func approval(_ line: ArraySlice<UInt8>) -> PinApproval? {
        guard let object = try? JSONValue.parse(line).objectValue,
            let server = object["server"]?.stringValue, let tool = object["tool"]?.stringValue,
            let digest = object["digest"]?.stringValue, let pinnedAt = object["pinnedAt"]?.doubleValue
        else { return nil }
        return PinApproval(server: server, tool: tool, digest: digest, pinnedAt: pinnedAt)
    }
}
