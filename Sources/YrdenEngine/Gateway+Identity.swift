import YrdenProtocol

extension Gateway {
    package static let version = "0.1.0"

    /// How the gateway introduces itself to upstreams.
    static let clientInfo: JSONValue = ["name": "yrden", "version": .string(version)]

    /// What the gateway tells handshake-era upstreams it can do as a client. It declares the MCP Apps UI
    /// extension so that servers keep offering their UI tools (many hide them from clients that do not), and
    /// the requests it relays to the client whose call asks (sampling, elicitation in both modes, roots);
    /// a client that did not declare one gets none, and the server an error instead. Clients' roots changes
    /// are passed on (`notifications/roots/list_changed`), hence `listChanged`.
    static let upstreamClientCapabilities: JSONObject = [
        "extensions": ["io.modelcontextprotocol/ui": ["mimeTypes": ["text/html;profile=mcp-app"]]],
        "sampling": [:],
        "elicitation": ["form": [:], "url": [:]],
        "roots": ["listChanged": true],
    ]

    /// What the gateway tells 2026-07-28 upstreams on its own requests (the probe, lists, liveness): the UI
    /// extension only. A client's request carries that client's own capabilities instead
    /// (``upstreamCapabilities(for:)``).
    static let modernUpstreamCapabilities: JSONObject = [
        "extensions": ["io.modelcontextprotocol/ui": ["mimeTypes": ["text/html;profile=mcp-app"]]]
    ]

    /// What a 2026-07-28 upstream is told the client can do for one request: the UI extension, and what of
    /// sampling, elicitation and roots the client itself declared (its answers reach it through the gateway).
    /// Roots as that era has them: no `listChanged`, which a handshake-era client may have declared.
    static func upstreamCapabilities(for client: JSONObject) -> JSONObject {
        var capabilities = modernUpstreamCapabilities
        for name in SessionRelay.capabilities { capabilities[name] = client[name] }
        if capabilities["roots"] != nil { capabilities["roots"] = [:] }
        return capabilities
    }
}
