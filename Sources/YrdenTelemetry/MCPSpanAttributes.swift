/// The attributes the gateway's own spans carry (OpenTelemetry's MCP conventions and `yrden.*`), as typed
/// fields: the event loop only points them at strings the call already holds, and the exporter names and
/// encodes them. An array of key-value pairs cost an allocation and a copy of every key per span.
///
/// The fields live in one copy-on-write box: a span is copied several times on its way to the queue, and a
/// struct of sixteen fields retained each of its strings at every copy (3 % of a traced call's CPU, perf).
package struct MCPSpanAttributes: Sendable, Equatable {
    /// The fields themselves, compared and copied as one value.
    private struct Fields: Equatable {
        var method: String?
        var sessionID: String?
        var protocolVersion: String?
        var requestNumber: Int64?
        var requestText: String?
        var toolName: String?
        var executesTool = false
        var resourceURI: String?
        var networkTransport: String?
        var profile: String?
        var server: String?
        var upstreamName: String?
        var transport: String?
        var outcome: String?
        var errorType: String?
        var change: String?
    }

    private final class Storage: @unchecked Sendable {  // mutated only when uniquely referenced (copy-on-write)
        var fields: Fields

        init(_ fields: Fields = Fields()) { self.fields = fields }
    }

    private var storage = Storage()

    package init() {}

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        return storage
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    /// `mcp.method.name`
    package var method: String? {
        get { storage.fields.method }
        set { unique().fields.method = newValue }
    }

    /// `mcp.session.id`
    package var sessionID: String? {
        get { storage.fields.sessionID }
        set { unique().fields.sessionID = newValue }
    }

    /// `mcp.protocol.version`
    package var protocolVersion: String? {
        get { storage.fields.protocolVersion }
        set { unique().fields.protocolVersion = newValue }
    }

    /// `jsonrpc.request.id` of a numeric id (sent as its decimal string, as the conventions have it).
    package var requestNumber: Int64? {
        get { storage.fields.requestNumber }
        set { unique().fields.requestNumber = newValue }
    }

    /// `jsonrpc.request.id` of a string id.
    package var requestText: String? {
        get { storage.fields.requestText }
        set { unique().fields.requestText = newValue }
    }

    /// `gen_ai.tool.name`
    package var toolName: String? {
        get { storage.fields.toolName }
        set { unique().fields.toolName = newValue }
    }

    /// `gen_ai.operation.name` = `execute_tool` (a `tools/call` request).
    package var executesTool: Bool {
        get { storage.fields.executesTool }
        set { unique().fields.executesTool = newValue }
    }

    /// `mcp.resource.uri`
    package var resourceURI: String? {
        get { storage.fields.resourceURI }
        set { unique().fields.resourceURI = newValue }
    }

    /// `network.transport`
    package var networkTransport: String? {
        get { storage.fields.networkTransport }
        set { unique().fields.networkTransport = newValue }
    }

    /// `yrden.profile`
    package var profile: String? {
        get { storage.fields.profile }
        set { unique().fields.profile = newValue }
    }

    /// `yrden.server`
    package var server: String? {
        get { storage.fields.server }
        set { unique().fields.server = newValue }
    }

    /// `yrden.tool.upstream_name`
    package var upstreamName: String? {
        get { storage.fields.upstreamName }
        set { unique().fields.upstreamName = newValue }
    }

    /// `yrden.transport`
    package var transport: String? {
        get { storage.fields.transport }
        set { unique().fields.transport = newValue }
    }

    /// `yrden.outcome`
    package var outcome: String? {
        get { storage.fields.outcome }
        set { unique().fields.outcome = newValue }
    }

    /// `error.type`
    package var errorType: String? {
        get { storage.fields.errorType }
        set { unique().fields.errorType = newValue }
    }

    /// `yrden.change`
    package var change: String? {
        get { storage.fields.change }
        set { unique().fields.change = newValue }
    }

    /// Each set field as its attribute, in a fixed order: for the exporter, and for tests to read.
    package func forEach(_ body: (_ key: StaticString, _ value: AttributeValue) -> Void) {
        if let method { body("mcp.method.name", .string(method)) }
        if let sessionID { body("mcp.session.id", .string(sessionID)) }
        if let protocolVersion { body("mcp.protocol.version", .string(protocolVersion)) }
        if let requestNumber { body("jsonrpc.request.id", .string(String(requestNumber))) }
        if let requestText { body("jsonrpc.request.id", .string(requestText)) }
        if let toolName { body("gen_ai.tool.name", .string(toolName)) }
        if executesTool { body("gen_ai.operation.name", .string("execute_tool")) }
        if let resourceURI { body("mcp.resource.uri", .string(resourceURI)) }
        if let networkTransport { body("network.transport", .string(networkTransport)) }
        if let profile { body("yrden.profile", .string(profile)) }
        if let server { body("yrden.server", .string(server)) }
        if let upstreamName { body("yrden.tool.upstream_name", .string(upstreamName)) }
        if let transport { body("yrden.transport", .string(transport)) }
        if let outcome { body("yrden.outcome", .string(outcome)) }
        if let errorType { body("error.type", .string(errorType)) }
        if let change { body("yrden.change", .string(change)) }
    }
}
