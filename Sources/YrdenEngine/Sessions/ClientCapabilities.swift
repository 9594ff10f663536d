import YrdenProtocol

/// What a session or a parked call keeps of the `capabilities` a client declared.
///
/// The client chooses their size, and a session lives until DELETE or its idle timeout: kept whole, twenty
/// `initialize` calls with 10 MiB each held 210 MB. The gateway reads only which of sampling, elicitation
/// and roots were declared and their flags (`elicitation.url`, `roots.listChanged`, `sampling.tools`), so only
/// those are kept: per capability its known flags and at most ``maxFlags`` others (a later revision's) of at
/// most ``maxNameLength`` characters, each a boolean or an empty object (what MCP declares them as; their
/// contents are never read).
enum ClientCapabilities {
    static let maxFlags = 8
    static let maxNameLength = 64
    /// The flags MCP defines for each relayed capability, kept before any other.
    static let knownFlags: [String: [String]] = [
        "sampling": ["tools", "context"],
        "elicitation": ["form", "url"],
        "roots": ["listChanged"],
    ]

    /// The kept part of `declared`: the relayed capabilities, each with its flags; anything else dropped.
    static func kept(from declared: JSONObject) -> JSONObject {
        var kept = JSONObject()
        for name in SessionRelay.capabilities {
            guard let value = declared[name], value != .null else { continue }
            let object = value.objectValue ?? [:]
            var flags = JSONObject()
            for key in knownFlags[name] ?? [] {
                if let flag = object[key].flatMap(reduced) { flags[key] = flag }
            }
            var others = 0
            for (key, flag) in object where others < maxFlags && key.utf8.count <= maxNameLength {
                guard flags[key] == nil, let flag = reduced(flag) else { continue }
                flags[key] = flag
                others += 1
            }
            kept[name] = .object(flags)
        }
        return kept
    }

    /// A flag as kept: a boolean as it is, an object as `{}`; anything else is not a flag.
    private static func reduced(_ flag: JSONValue) -> JSONValue? {
        switch flag {
        case .bool: flag
        case .object: [:]
        default: nil
        }
    }
}
