/// One upstream MCP server as configured: how to reach it and how the gateway treats it.
///
/// The id is the server's stable name in the admin API and in `/servers/{id}/mcp`; the prefix is what its tools
/// and prompts are called by on the aggregated endpoint (`<prefix><separator><tool>`). They are separate so a
/// server can be renamed for hosts without changing how operators address it.
package struct ServerSpec: Sendable, Hashable {
    package var id: String
    package var transport: TransportSpec
    package var prefix: String
    package var toolFilter: ToolFilter
    package var timeouts: Timeouts
    package var reconnect: ReconnectPolicy
    /// A disabled server stays in the config (and the admin API) but is never connected.
    package var disabled: Bool

    package init(
        id: String,
        transport: TransportSpec,
        prefix: String? = nil,
        toolFilter: ToolFilter = ToolFilter(),
        timeouts: Timeouts = Timeouts(),
        reconnect: ReconnectPolicy = .default,
        disabled: Bool = false
    ) {
        self.id = id
        self.transport = transport
        self.prefix = prefix ?? id
        self.toolFilter = toolFilter
        self.timeouts = timeouts
        self.reconnect = reconnect
        self.disabled = disabled
    }

    /// The keys a server entry may have, in the order problem messages list them.
    static let keys = [
        "command", "args", "env", "cwd", "url", "headers", "auth", "type",
        "prefix", "tools", "timeouts", "reconnect", "disabled",
    ]
}
