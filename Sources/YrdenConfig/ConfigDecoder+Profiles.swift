import YrdenProtocol

/// `profiles`: profile name → `{"servers", "tools", "rename", "descriptions", "toolMode", "clientTokens", "users",
/// "groups"}`, every
/// key optional. Names are checked like server ids (they are URL path segments); servers must exist; a new name
/// in `rename` must be one hosts accept and may not be given twice, since one of the two tools would vanish.
extension ConfigDecoder {
    static let profileKeys = [
        "servers", "tools", "rename", "descriptions", "toolMode", "clientTokens", "users", "groups",
    ]

    func decodeProfiles(_ reader: JSONReader, servers: [ServerSpec]) -> [ProfileSpec] {
        guard let entries = reader.entries() else { return [] }
        let ids = servers.map(\.id)
        return entries.compactMap { name, entry in
            if !ConfigRules.isName(name) {
                entry.report(
                    "profile name \(name.quoted) is not valid",
                    fix: "use 1 to 63 lowercase letters, digits, \"_\" or \"-\", starting with a letter or digit"
                        + " (for example \(ConfigRules.suggestedName(for: name).quoted)); it is part of /mcp/<name>"
                )
                return nil
            }
            return decodeProfile(name: name, entry, serverIDs: ids)
        }
    }

    private func decodeProfile(name: String, _ reader: JSONReader, serverIDs: [String]) -> ProfileSpec? {
        guard let object = reader.object(known: Self.profileKeys) else { return nil }
        var profile = ProfileSpec(name: name)
        if let items = object["servers"]?.array() {
            profile.servers = items.compactMap { item in
                guard let id = item.nonEmptyString("the server id") else { return nil }
                guard serverIDs.contains(id) else {
                    item.report(
                        "there is no server \(id.quoted)",
                        fix: KeySuggestion.valueFix(for: id, among: serverIDs)
                    )
                    return nil
                }
                return id
            }
        }
        if let tools = object["tools"] { profile.tools = decodeToolFilter(tools) }
        if let rename = object["rename"]?.stringMap() {
            var owners: [String: String] = [:]
            for (from, to, item) in rename {
                if let finding = ConfigRules.checkPublicName(to) {
                    item.report(finding)
                } else if let first = owners.updateValue(from, forKey: to) {
                    item.report(
                        "\(from.quoted) and \(first.quoted) are both renamed \(to.quoted)",
                        fix: "give each its own name; a host would see only one of them"
                    )
                } else {
                    profile.rename[from] = to
                }
            }
        }
        for (name, description, _) in object["descriptions"]?.stringMap() ?? [] {
            profile.descriptions[name] = description
        }
        if let mode = object["toolMode"], let word = mode.string() {
            if let toolMode = ProfileSpec.ToolMode(rawValue: word) {
                profile.toolMode = toolMode
            } else {
                let accepted = ProfileSpec.ToolMode.allCases.map(\.rawValue)
                mode.report("unknown tool mode \(word.quoted)", fix: KeySuggestion.valueFix(for: word, among: accepted))
            }
        }
        if let tokens = object["clientTokens"]?.tokens("a client token") {
            profile.clientTokens = tokens
        }
        // Grants: who may use the profile (see ``ProfileSpec/users``).
        if let users = object["users"]?.array() { profile.users = users.compactMap { $0.nonEmptyString("a user") } }
        if let groups = object["groups"]?.array() {
            profile.groups = groups.compactMap { $0.nonEmptyString("a group") }
        }
        return profile
    }
}
