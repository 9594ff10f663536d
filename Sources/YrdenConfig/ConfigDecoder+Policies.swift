import YrdenProtocol

/// The per-server policies: `tools`, `timeouts` and `reconnect`.
///
/// - `tools`: `{"allow": [names], "deny": [names]}`, both optional; a name in both lists is a problem because
///   the intent is unclear.
/// - `timeouts`: `{"connect", "request", "toolCall"}`, seconds from 0.001 to one year; missing ones keep their
///   defaults.
/// - `reconnect`: `"never"`, or `{"initialDelay", "maxDelay", "maxAttempts"}` where the delays are seconds,
///   `maxDelay` is at least `initialDelay`, and `maxAttempts` is 1 to 1,000,000 (absent means unlimited).
extension ConfigDecoder {
    static let toolFilterKeys = ["allow", "deny"]

    func decodeToolFilter(_ reader: JSONReader) -> ToolFilter {
        var filter = ToolFilter()
        guard let object = reader.object(known: Self.toolFilterKeys) else { return filter }
        if let items = object["allow"]?.array() {
            filter.allow = items.compactMap { $0.nonEmptyString("the tool name") }
        }
        for item in object["deny"]?.array() ?? [] {
            guard let name = item.nonEmptyString("the tool name") else { continue }
            if filter.allow?.contains(name) == true {
                item.report(
                    "tool \(name.quoted) is both allowed and denied",
                    fix: "remove it from \"allow\" or from \"deny\""
                )
            }
            filter.deny.append(name)
        }
        return filter
    }

    func decodeTimeouts(_ reader: JSONReader) -> Timeouts {
        var timeouts = Timeouts()
        guard let object = reader.object(known: Timeouts.keys) else { return timeouts }
        if let value = object["connect"]?.seconds() { timeouts.connect = value }
        if let value = object["request"]?.seconds() { timeouts.request = value }
        if let value = object["toolCall"]?.seconds() { timeouts.toolCall = value }
        if let value = object["discover"]?.seconds() { timeouts.discover = value }
        return timeouts
    }

    /// `protocol`: `"auto"`, `"2026-07-28"` or `"2025-11-25"`.
    func decodeProtocol(_ reader: JSONReader) -> UpstreamProtocol {
        let words = UpstreamProtocol.allCases.map(\.rawValue.quoted).joined(separator: ", ")
        guard let word = reader.string() else { return .auto }
        guard let pinned = UpstreamProtocol(rawValue: word) else {
            reader.report("unknown protocol \(word.quoted)", fix: "write one of \(words)")
            return .auto
        }
        return pinned
    }

    func decodeReconnect(_ reader: JSONReader) -> ReconnectPolicy {
        let fix = "write \"never\", or an object such as {\"initialDelay\": 1, \"maxDelay\": 60}"
        switch reader.value {
        case .string(let word):
            guard word == "never" else {
                reader.report("unknown reconnect policy \(word.quoted)", fix: fix)
                return .default
            }
            return .never
        case .object:
            return decodeBackoff(reader)
        default:
            reader.report("expected \"never\" or an object, found \(reader.value.typeName)", fix: fix)
            return .default
        }
    }

    private func decodeBackoff(_ reader: JSONReader) -> ReconnectPolicy {
        guard let object = reader.object(known: ReconnectPolicy.keys),
            case .backoff(var initialDelay, var maxDelay, var maxAttempts) = ReconnectPolicy.default
        else { return .default }
        if let value = object["initialDelay"]?.seconds() { initialDelay = value }
        if let value = object["maxDelay"]?.seconds() { maxDelay = value }
        // Compared as written: 60.00000000000001 s is longer than 60 s, though both are 60 s to the nanosecond.
        func written(_ key: String, else duration: Duration) -> Double {
            object[key]?.value.doubleValue ?? Double(duration.components.seconds)
                + Double(duration.components.attoseconds) / 1e18
        }
        let longer = written("maxDelay", else: maxDelay) < written("initialDelay", else: initialDelay)
        if maxDelay < initialDelay || longer, object.contains("initialDelay") || object.contains("maxDelay") {
            let field = object["maxDelay"] ?? object["initialDelay"]
            field?.report(
                "maxDelay (\(maxDelay.secondsText)) is shorter than initialDelay (\(initialDelay.secondsText))",
                fix: "make maxDelay at least as long as initialDelay"
            )
        }
        if let field = object["maxAttempts"] {
            maxAttempts = field.integer(
                in: 1...ReconnectPolicy.maxAttemptsLimit,
                fix: "use a count from 1 to \(ReconnectPolicy.maxAttemptsLimit), leave it out for unlimited, or write"
                    + " \"reconnect\": \"never\""
            )
        }
        return .backoff(initialDelay: initialDelay, maxDelay: maxDelay, maxAttempts: maxAttempts)
    }
}

extension Duration {
    /// `"1.5 s"`: how a problem message quotes a duration the operator wrote in seconds.
    var secondsText: String {
        let (seconds, attoseconds) = components
        if attoseconds == 0 { return "\(seconds) s" }
        return "\(Double(seconds) + Double(attoseconds) / 1e18) s"
    }
}
