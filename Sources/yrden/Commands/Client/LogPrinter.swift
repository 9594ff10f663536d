import YrdenProtocol

/// Prints log entries to stdout, one line each: `TIME LEVEL SERVER EVENT MESSAGE` in columns that widen as
/// wider values arrive, or with `--json` each entry as one line of JSON.
struct LogPrinter {
    let json: Bool
    private var serverWidth = 1
    /// Wide enough for the common events (`state`, `stderr`, `config`) from the first line on.
    private var eventWidth = 6

    /// The widest level, `critical`.
    private static let levelWidth = 8

    init(json: Bool) {
        self.json = json
    }

    mutating func print(_ entries: [JSONValue]) {
        guard !entries.isEmpty else { return }
        for entry in entries {
            Swift.print(json ? entry.jsonText : line(entry))
        }
        Terminal.flushOutput()
    }

    private mutating func line(_ entry: JSONValue) -> String {
        let time = entry["time"]?.stringValue ?? "-"
        let level = entry["level"]?.stringValue ?? "-"
        let server = entry["server"]?.stringValue ?? "-"
        let event = entry["event"]?.stringValue ?? "-"
        let message = (entry["message"]?.stringValue ?? "").split(whereSeparator: \.isNewline).joined(separator: " ⏎ ")
        serverWidth = max(serverWidth, server.count)
        eventWidth = max(eventWidth, event.count)
        return [
            time, Self.padded(level, Self.levelWidth), Self.padded(server, serverWidth),
            Self.padded(event, eventWidth), message,
        ].joined(separator: " ")
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(width - text.count, 0))
    }
}
