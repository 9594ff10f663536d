import YrdenConfig
import YrdenEngine
import YrdenProtocol

/// Profiles as operators change them at runtime: validated like the file (the whole document is decoded with
/// the change in it, so the messages and paths are the file's own), written back, then given to the gateway.
extension ConfigStore {
    /// Every profile as written, client tokens redacted, in document order.
    package func redactedProfiles() -> [(name: String, entry: JSONValue)] {
        document.profileNames.compactMap { name in
            document.profileEntry(name).map { (name, ConfigDocument.redactedProfile($0)) }
        }
    }

    package func redactedProfile(_ name: String) -> JSONValue? {
        document.profileEntry(name).map(ConfigDocument.redactedProfile)
    }

    /// Creates or replaces profile `name`; true when it was created. Tokens sent back as shown keep their values.
    @discardableResult
    package func putProfile(_ name: String, entry: JSONValue) async throws(ConfigStoreError) -> Bool {
        try await enter()
        defer { gate.leave() }
        try await catchUp()
        let previous = document.profileEntry(name)
        let restored = ConfigDocument.restoringRedactedProfile(entry, from: previous)
        if restored["clientTokens"]?.arrayValue?.contains(where: { ConfigDocument.holdsRedactionMark($0) }) == true {
            throw .invalid(Self.problem("profiles.\(name).clientTokens", "a hidden token was sent for a new place"))
        }
        var next = document
        next.setProfile(restored, for: name)
        try await applyProfiles(of: next)
        return previous == nil
    }

    package func removeProfile(_ name: String) async throws(ConfigStoreError) {
        try await enter()
        defer { gate.leave() }
        try await catchUp()
        var next = document
        guard next.removeProfile(name) else { throw .conflict("there is no profile \(name)") }
        try await applyProfiles(of: next)
    }

    /// Validates `next`, writes it, and gives its profiles to the gateway.
    private func applyProfiles(of next: ConfigDocument) async throws(ConfigStoreError) {
        let config: GatewayConfig
        do { config = try next.decoded(environment: environment, source: "admin API") } catch { throw .invalid(error) }
        try await commit(next)
        await gateway.registry.setProfiles(config.profiles)
    }

    private static func problem(_ path: String, _ message: String) -> ConfigError {
        ConfigError(
            source: "admin API",
            problems: [ConfigProblem(path: path, message: message, fix: "send the token itself, or leave it out")]
        )
    }
}
