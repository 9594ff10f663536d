import YrdenProtocol

/// Where `logs --follow` is in the gateway's log: the time of the newest entry printed, to ask only for later
/// ones, and the entries printed with that very time, so none is printed twice.
struct LogCursor {
    /// The `since` of the next request: the newest entry's `time` as the gateway wrote it.
    private(set) var since: String?
    private var printedAtSince: Set<JSONValue> = []

    /// The entries of a `LogEntryList` not printed yet, oldest first.
    mutating func newEntries(in list: JSONValue) -> [JSONValue] {
        let entries = (list["entries"]?.arrayValue ?? []).filter { entry in
            !(entry["time"]?.stringValue == since && printedAtSince.contains(entry))
        }
        for entry in entries {
            guard let time = entry["time"]?.stringValue else { continue }
            if time != since {
                since = time
                printedAtSince = []
            }
            printedAtSince.insert(entry)
        }
        return entries
    }
}
