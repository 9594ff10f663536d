/// A named view of the gateway for one kind of host (`profiles.<name>`, served at `/mcp/<name>`): which servers
/// and tools it sees, under which names and descriptions, and whether it sees them all or searches them.
///
/// Names in `tools`, `rename` and `descriptions` are the tools' names on `/mcp` (`<prefix><separator><name>`),
/// which an operator reads off `/api/v1/tools`; `descriptions` is keyed by the name the profile shows.
package struct ProfileSpec: Sendable, Hashable {
    /// How a profile offers its tools.
    package enum ToolMode: String, Sendable, Hashable, CaseIterable {
        /// Every tool the profile sees, in `tools/list`.
        case all
        /// Two tools instead: one that searches the profile's tools, one that calls one of them by name.
        case search
    }

    package var name: String
    /// The servers whose tools, prompts and resources the profile sees, in config order; `nil`: all of them.
    package var servers: [String]?
    /// Which of those servers' tools it sees (patterns with `*`, over names on `/mcp`).
    package var tools: ToolFilter
    /// Name on `/mcp` → the name the profile shows instead.
    package var rename: [String: String]
    /// Name the profile shows → the description it shows instead.
    package var descriptions: [String: String]
    package var toolMode: ToolMode
    /// Bearer tokens this profile's endpoint accepts (the admin token too); empty: the gateway's `clientTokens`.
    package var clientTokens: [String]
    /// Who may use the profile, by user (a token's `sub`, or a static token's `token:<8 hex>`) or by group; both
    /// empty: every caller the endpoint admits.
    package var users: [String] = []
    package var groups: [String] = []

    /// Whether the profile is granted to some users or groups only.
    package var isRestricted: Bool { !users.isEmpty || !groups.isEmpty }

    package init(
        name: String,
        servers: [String]? = nil,
        tools: ToolFilter = ToolFilter(),
        rename: [String: String] = [:],
        descriptions: [String: String] = [:],
        toolMode: ToolMode = .all,
        clientTokens: [String] = []
    ) {
        self.name = name
        self.servers = servers
        self.tools = tools
        self.rename = rename
        self.descriptions = descriptions
        self.toolMode = toolMode
        self.clientTokens = clientTokens
    }

    /// Whether server `id`'s lists are in this profile.
    package func includes(server id: String) -> Bool {
        servers?.contains(id) ?? true
    }
}
