import YrdenProtocol

/// The `profiles` entries of a document: what the admin API reads, writes and removes, with each profile's
/// `clientTokens` hidden when shown and put back when a client sends back what it was shown.
extension ConfigDocument {
    static let profilesKey = "profiles"

    /// The profile names, in document order.
    package var profileNames: [String] {
        guard case .object(let profiles) = root[Self.profilesKey] else { return [] }
        var seen: Set<String> = []
        return profiles.map(\.key).filter { seen.insert($0).inserted }
    }

    package func profileEntry(_ name: String) -> JSONValue? {
        root[Self.profilesKey]?.objectValue?[name]
    }

    /// Puts `entry` under `name`: in place when the profile exists, else at the end. Does not validate.
    package mutating func setProfile(_ entry: JSONValue, for name: String) {
        var profiles = root[Self.profilesKey]?.objectValue ?? JSONObject()
        profiles[name] = entry
        root[Self.profilesKey] = .object(profiles)
    }

    @discardableResult
    package mutating func removeProfile(_ name: String) -> Bool {
        guard var profiles = root[Self.profilesKey]?.objectValue, case .some = profiles[name] else { return false }
        while case .some = profiles[name] { profiles[name] = nil }
        root[Self.profilesKey] = profiles.isEmpty ? nil : .object(profiles)
        return true
    }

    /// The profiles whose `servers` name server `id`: removing it would leave them naming a server that is gone.
    package func profilesNaming(server id: String) -> [String] {
        profileNames.filter { name in
            profileEntry(name)?["servers"]?.arrayValue?.contains(.string(id)) == true
        }
    }

    /// A profile entry with its `clientTokens` redacted.
    package static func redactedProfile(_ entry: JSONValue) -> JSONValue {
        guard case .object(var profile) = entry, let tokens = profile["clientTokens"] else { return entry }
        profile["clientTokens"] = tokens.arrayValue.map { .array($0.map(redactedValue)) } ?? redactedValue(tokens)
        return .object(profile)
    }

    /// `new` with each of its `clientTokens` put back from `old` where the client sent what it was shown.
    package static func restoringRedactedProfile(_ new: JSONValue, from old: JSONValue?) -> JSONValue {
        guard case .object(var profile) = new, let sent = profile["clientTokens"]?.arrayValue,
            let stored = old?["clientTokens"]?.arrayValue, sent.count == stored.count
        else { return new }
        profile["clientTokens"] = .array(zip(sent, stored).map { isShownForm($0, of: $1) ? $1 : $0 })
        return .object(profile)
    }
}
