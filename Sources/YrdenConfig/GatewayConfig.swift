/// The whole configuration as the rest of the gateway sees it: validated, expanded, defaults filled in.
///
/// This is the one IR that the file, the admin API and the CLI all produce; nothing downstream looks at JSON.
/// Values here are final: `${VAR}` has been expanded and `YRDEN_*` overrides applied.
package struct GatewayConfig: Sendable, Hashable {
    package var gateway: GatewaySettings
    package var security: SecuritySettings
    /// In document order, which decides ties: the first-listed server wins a resource URI both claim.
    package var servers: [ServerSpec]
    /// The views of the gateway hosts can be given instead of the whole of it, in document order.
    package var profiles: [ProfileSpec]
    /// Where replicas share their state; empty keeps it in files.
    package var store = StoreSettings()
    /// Where the audit trail is written; empty audits nothing.
    package var audit = AuditSettings()
    /// Token buckets for calls that reach an upstream; empty limits nothing.
    package var limits = LimitSettings()
    /// Where OpenTelemetry traces go (read at start); no collector: tracing is off.
    package var telemetry = TelemetrySettings()

    package init(
        gateway: GatewaySettings = GatewaySettings(),
        security: SecuritySettings = SecuritySettings(),
        servers: [ServerSpec] = [],
        profiles: [ProfileSpec] = []
    ) {
        self.gateway = gateway
        self.security = security
        self.servers = servers
        self.profiles = profiles
    }

    /// The profile with this name, if any.
    package func profile(named name: String) -> ProfileSpec? {
        profiles.first { $0.name == name }
    }

    /// The server with this id, if any.
    package func server(id: String) -> ServerSpec? {
        servers.first { $0.id == id }
    }

    /// What `yrden serve` runs without a config file: the built-in demo server, so the first run works offline.
    ///
    /// Decode it with `YRDEN_EXECUTABLE` set to the running binary's path in the environment.
    package static let embeddedDefaultJSON =
        #"{"mcpServers":{"demo":{"command":"${YRDEN_EXECUTABLE}","args":["demo-server"]}}}"#
}
