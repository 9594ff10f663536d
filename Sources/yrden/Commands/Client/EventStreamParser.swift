/// Server-Sent Events cut from bytes as they arrive, as the admin API sends them: an `event:` line, `data:`
/// lines and a blank line per event, `: keepalive` comments in between. Lines end in LF or CRLF.
struct EventStreamParser {
    struct Event: Sendable, Hashable {
        /// The `event:` field; `message` when the event has none.
        var name: String
        /// The `data:` lines, joined with LF.
        var data: String
    }

    private var line: [UInt8] = []
    private var name = ""
    private var data: [String] = []

    /// Events that `bytes` completed, in order.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            guard byte == UInt8(ascii: "\n") else {
                line.append(byte)
                continue
            }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if let event = take(String(decoding: line, as: UTF8.self)) { events.append(event) }
            line.removeAll(keepingCapacity: true)
        }
        return events
    }

    /// Applies one line; a blank line ends the event, if it had data.
    private mutating func take(_ text: String) -> Event? {
        if text.isEmpty {
            defer {
                name = ""
                data = []
            }
            return data.isEmpty ? nil : Event(name: name.isEmpty ? "message" : name, data: data.joined(separator: "\n"))
        }
        if text.hasPrefix(":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = Substring(text)
            value = ""
        }
        switch field {
        case "event": name = String(value)
        case "data": data.append(String(value))
        default: break
        }
        return nil
    }
}
