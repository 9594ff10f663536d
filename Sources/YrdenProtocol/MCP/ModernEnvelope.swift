/// The per-request envelope of MCP 2026-07-28: the version, capabilities and identity a client sends in
/// `params._meta` of every request, in place of a session's `initialize`.
package struct ModernEnvelope: Sendable {
    package static let versionKey = "io.modelcontextprotocol/protocolVersion"
    package static let capabilitiesKey = "io.modelcontextprotocol/clientCapabilities"
    package static let clientInfoKey = "io.modelcontextprotocol/clientInfo"
    package static let subscriptionIDKey = "io.modelcontextprotocol/subscriptionId"
    package static let serverInfoKey = "io.modelcontextprotocol/serverInfo"
    package static let logLevelKey = "io.modelcontextprotocol/logLevel"

    package let protocolVersion: String
    /// What the client can do for this request only; never carried over to another.
    package let clientCapabilities: JSONObject
    /// Self-reported, for display.
    package let clientInfo: JSONValue?
    /// The least severe log message the client wants for this request; `nil`: none at all.
    package let logLevel: LoggingLevel?

    /// The envelope's keys, which belong to one hop: an upstream gets its own (a handshake-era server refuses
    /// a request that carries them).
    package static let keys: Set<String> = [
        versionKey, capabilitiesKey, clientInfoKey, logLevelKey,
    ]

    /// `params` without the envelope's keys in `_meta` (and without `_meta` if nothing else was in it).
    package static func stripped(_ params: JSONValue?) -> JSONValue? {
        guard var object = params?.objectValue, var meta = object["_meta"]?.objectValue else { return params }
        for key in keys { meta[key] = nil }
        object["_meta"] = meta.isEmpty ? nil : .object(meta)
        return .object(object)
    }

    /// `params` with this hop's envelope in `_meta`, replacing whatever envelope was there: how the gateway
    /// stamps each request it sends to a 2026-07-28 upstream.
    package static func stamped(
        _ params: JSONValue?,
        version: String,
        capabilities: JSONObject,
        clientInfo: JSONValue
    ) -> JSONValue {
        var object = params?.objectValue ?? [:]
        var meta = object["_meta"]?.objectValue ?? [:]
        meta[versionKey] = .string(version)
        meta[capabilitiesKey] = .object(capabilities)
        meta[clientInfoKey] = clientInfo
        object["_meta"] = .object(meta)
        return .object(object)
    }

    /// Whether `request` is of the stateless era: its `_meta` names a protocol version.
    package static func isPresent(in request: JSONRPCRequest) -> Bool {
        request.params?["_meta"]?[versionKey] != nil
    }

    /// Reads the envelope: -32602 when a required key is missing or of the wrong type, -32022 (listing
    /// `served`) when the version is not one the gateway serves statelessly.
    package init(_ request: JSONRPCRequest, served: [String]) throws(JSONRPCError) {
        let meta = request.params?["_meta"]?.objectValue ?? [:]
        guard let version = meta[Self.versionKey] else {
            throw .invalidParams("params._meta must carry \(Self.versionKey)")
        }
        guard let versionText = version.stringValue else {
            throw .invalidParams("\(Self.versionKey) must be a string")
        }
        guard let capabilities = meta[Self.capabilitiesKey]?.objectValue else {
            throw .invalidParams("params._meta must carry \(Self.capabilitiesKey) (an object; {} for none)")
        }
        guard versionText == ProtocolVersion.modern else {
            throw .unsupportedVersion(requested: version, supported: served, detail: versionText)
        }
        protocolVersion = versionText
        clientCapabilities = capabilities
        clientInfo = meta[Self.clientInfoKey]
        logLevel = try meta[Self.logLevelKey].map { value throws(JSONRPCError) in try LoggingLevel(validating: value) }
    }
}

/// The value form of 2026-07-28's `Mcp-Name` and `Mcp-Param-*` headers: plain visible ASCII as it is,
/// anything else as `=?base64?<UTF-8 in base64>?=`.
package enum MCPHeaderValue {
    /// The text a header value stands for; `nil` when its base64 form does not decode to UTF-8.
    package static func decode(_ value: String) -> String? {
        guard value.hasPrefix("=?base64?"), value.hasSuffix("?="), value.count >= 11 else { return value }
        let encoded = value.dropFirst(9).dropLast(2)
        guard let bytes = Base64.decode(String(encoded)) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension MCPHeaderValue {
    /// The header form of `text`: as it is when it is visible ASCII with no surrounding space and does not
    /// itself look encoded; otherwise `=?base64?…?=` of its UTF-8.
    package static func encode(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let plain =
            !bytes.isEmpty && bytes.allSatisfy { (0x20...0x7E).contains($0) } && bytes.first != 0x20
            && bytes.last != 0x20 && !(text.hasPrefix("=?base64?") && text.hasSuffix("?="))
        return plain ? text : "=?base64?\(Base64.encode(bytes, urlSafe: false))?="
    }
}
