/// One dispatched Server-Sent Event.
package struct SSEEvent: Sendable, Hashable {
    /// The `event:` field; `nil` means the default type, `message`.
    package var event: String?
    /// The `data:` lines, joined with `\n`.
    package var data: [UInt8]
    /// The `id:` in force when the event was dispatched (the stream's last event id).
    package var id: String?

    package init(event: String? = nil, data: [UInt8], id: String? = nil) {
        self.event = event
        self.data = data
        self.id = id
    }
}

/// An incremental Server-Sent Events parser, fed bytes as they arrive (WHATWG HTML §9.2.6).
///
/// Lines may end in CRLF, LF or CR, also when the CR and the LF arrive in different chunks. Comments are
/// skipped; an event with no data (such as the 2025-11-25 priming event) is not dispatched, though its
/// `id` and `retry` still take effect. An event whose data grows past `maxEventBytes` is dropped whole and
/// counted in `droppedEvents`, so one runaway stream cannot exhaust memory.
///
/// The one parser of the project: upstream streams (Streamable HTTP, legacy SSE) and the CLI's reading of
/// `GET /api/v1/events` both use it.
package struct SSEParser: Sendable {
    private let maxEventBytes: Int
    private var line: [UInt8] = []
    private var lineTooLong = false
    private var afterCR = false
    private var atStart = true
    private var data: [UInt8] = []
    private var hasData = false
    private var eventTooLarge = false
    private var eventType: String?

    /// The last `id:` seen; what a reconnection sends as `Last-Event-ID`.
    package private(set) var lastEventID: String?
    /// The last valid `retry:` value, in milliseconds.
    package private(set) var retryMilliseconds: Int?
    /// Events discarded because they exceeded `maxEventBytes`.
    package private(set) var droppedEvents = 0

    package init(maxEventBytes: Int = 64 << 20) {
        self.maxEventBytes = maxEventBytes
    }

    /// Parses `bytes` and calls `dispatch` for every event they complete.
    package mutating func feed(_ bytes: some Sequence<UInt8>, dispatch: (SSEEvent) -> Void) {
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0D:
                afterCR = true
                endLine(dispatch: dispatch)
            case 0x0A:
                endLine(dispatch: dispatch)
            default:
                if line.count < maxEventBytes {
                    line.append(byte)
                } else {
                    lineTooLong = true
                }
            }
        }
    }

    /// Every event `bytes` completes, in order (for a caller that handles them after the chunk).
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [SSEEvent] {
        var events: [SSEEvent] = []
        feed(bytes) { events.append($0) }
        return events
    }

    private mutating func endLine(dispatch: (SSEEvent) -> Void) {
        var current = line
        line.removeAll(keepingCapacity: true)
        // A UTF-8 byte order mark may open the stream; it is not part of the first line.
        if atStart {
            atStart = false
            if current.starts(with: [0xEF, 0xBB, 0xBF]) { current.removeFirst(3) }
        }
        if lineTooLong {
            lineTooLong = false
            eventTooLarge = true
            return
        }
        if current.isEmpty {
            dispatchEvent(dispatch)
            return
        }
        if current.first == UInt8(ascii: ":") { return }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = current.firstIndex(of: UInt8(ascii: ":")) {
            field = current[..<colon]
            value = current[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            field = current[...]
            value = []
        }
        switch String(decoding: field, as: UTF8.self) {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData { data.append(0x0A) }
            hasData = true
            data.append(contentsOf: value)
            if data.count > maxEventBytes {
                eventTooLarge = true
                data.removeAll()
            }
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }),
                let milliseconds = Int(String(decoding: value, as: UTF8.self))
            {
                retryMilliseconds = milliseconds
            }
        default:
            break
        }
    }

    private mutating func dispatchEvent(_ dispatch: (SSEEvent) -> Void) {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventTooLarge = false
            eventType = nil
        }
        if eventTooLarge {
            droppedEvents += 1
            return
        }
        guard hasData, !data.isEmpty else { return }
        dispatch(SSEEvent(event: eventType.flatMap { $0.isEmpty ? nil : $0 }, data: data, id: lastEventID))
    }
}
