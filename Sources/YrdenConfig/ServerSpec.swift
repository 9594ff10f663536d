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
    /// The MCP era spoken to the server: probed (`auto`) or pinned.
    package var protocolEra: UpstreamProtocol
    /// A disabled server stays in the config (and the admin API) but is never connected.
    package var disabled: Bool
    /// `${...}` references in the entry that cannot be resolved where the gateway runs; when any is, the
    /// server is not started and shows ``configFailure`` instead. The transport then holds the text as written.
    package var unresolved: [UnresolvedReference]

    package init(
        id: String,
        transport: TransportSpec,
        prefix: String? = nil,
        toolFilter: ToolFilter = ToolFilter(),
        timeouts: Timeouts = Timeouts(),
        reconnect: ReconnectPolicy = .default,
        protocolEra: UpstreamProtocol = .auto,
        disabled: Bool = false,
        unresolved: [UnresolvedReference] = []
    ) {
        self.id = id
        self.transport = transport
        self.prefix = prefix ?? id
        self.toolFilter = toolFilter
        self.timeouts = timeouts
        self.reconnect = reconnect
        self.protocolEra = protocolEra
        self.disabled = disabled
        self.unresolved = unresolved
    }

    /// Why the server cannot be started as configured, for its failed state; `nil` when it can.
    package var configFailure: String? {
        guard let first = unresolved.first else { return nil }
        let more = unresolved.count > 1 ? " (and \(unresolved.count - 1) more reference(s) like it)" : ""
        return "\(first)\(more)"
    }

    /// The keys a server entry may have, in the order problem messages list them.
    static let keys = [
        "command", "args", "env", "cwd", "url", "headers", "auth", "type",
        "prefix", "tools", "timeouts", "reconnect", "protocol", "disabled",
    ]
}
