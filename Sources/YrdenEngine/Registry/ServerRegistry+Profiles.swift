import YrdenConfig
import YrdenProtocol

/// Profiles: named views of the gateway (`/mcp/{profile}`), each rebuilt with the aggregate, and told apart
/// when announcing changes, so a profile's clients hear of a change only when their own lists changed.
extension ServerRegistry {
    /// Replaces the profiles (the config file or the admin API changed them); their clients hear of it when
    /// their lists changed. Sessions of a profile that is gone end.
    package func setProfiles(_ profiles: [ProfileSpec]) async {
        let removed = await update { snapshot -> Set<String> in
            let before = Set(snapshot.profileOrder)
            snapshot.setProfiles(profiles)
            return before.subtracting(snapshot.profileOrder)
        }
        guard !removed.isEmpty else { return }
        for session in sessions.all() {
            if case .profile(let name) = session.scope, removed.contains(name) { _ = sessions.end(session.id) }
        }
    }
}

extension ServerRegistry.Snapshot {
    /// The profiles in config order.
    package var profileSpecList: [ProfileSpec] { profileOrder.compactMap { profileSpecs[$0] } }

    /// Takes these profiles; their views are built by ``rebuildProfiles()`` (the writer does it when it sees
    /// that the profiles changed).
    mutating func setProfiles(_ specs: [ProfileSpec]) {
        profileOrder = specs.map(\.name)
        profileSpecs = Dictionary(specs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every profile's view of ``catalog`` (called when the aggregate or the profiles changed), each built from
    /// its view before: a profile whose spec is the same matches again only the tools of servers that changed.
    mutating func rebuildProfiles() {
        var views: [String: ProfileView] = [:]
        for (name, spec) in profileSpecs {
            views[name] = ProfileView(spec: spec, catalog: catalog, previous: profiles[name])
        }
        profiles = views
    }
}
