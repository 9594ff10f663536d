/// Which scopes a sign-in asks for (MCP spec, "Scope Selection Strategy", and step-up).
enum ScopeSelection {
    /// The scopes of the server's challenge are authoritative, joined by the configured ones and, for a
    /// step-up, by those asked before (2026-07-28 asks for the union, so one operation's upgrade does not drop
    /// another's). Without a challenge: the configured scopes, else the protected-resource metadata's
    /// `scopes_supported`. Nil leaves `scope` out.
    static func select(
        challenged: [String]?,
        configured: [String],
        previous: [String]?,
        supported: [String]?
    ) -> [String]? {
        if let challenged {
            return union(union(previous ?? [], configured), challenged)
        }
        if !configured.isEmpty { return union(previous ?? [], configured) }
        if let supported, !supported.isEmpty { return supported }
        return previous
    }

    /// `first` then the members of `second` not already in it, in order.
    static func union(_ first: [String], _ second: [String]) -> [String] {
        var result: [String] = []
        var seen: Set<String> = []
        for scope in first + second where seen.insert(scope).inserted { result.append(scope) }
        return result
    }
}
