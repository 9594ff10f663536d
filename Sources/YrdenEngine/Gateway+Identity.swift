import YrdenProtocol

extension Gateway {
    package static let version = "0.1.0"

    /// How the gateway introduces itself to upstreams.
    static let clientInfo: JSONValue = ["name": "yrden", "version": .string(version)]

    /// What the gateway tells upstreams it can do as a client. It declares the MCP Apps UI extension so that
    /// servers keep offering their UI tools (many hide them from clients that do not), and nothing it cannot
    /// honour (no sampling, roots or elicitation yet).
    static let upstreamClientCapabilities: JSONObject = [
        "extensions": ["io.modelcontextprotocol/ui": ["mimeTypes": ["text/html;profile=mcp-app"]]]
    ]
}
