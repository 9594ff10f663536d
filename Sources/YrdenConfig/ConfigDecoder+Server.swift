import YrdenProtocol

/// One entry of `mcpServers`.
///
/// Keys, all optional except that exactly one of `command` and `url` must be present:
/// - `command` (string), `args` (array of strings), `env` (object of strings), `cwd` (string): a stdio server.
/// - `url` (absolute http/https URL), `headers` (object of strings), `auth` (object): a remote server.
/// - `type` (`"stdio"`, `"http"` (also `"streamable-http"`, `"streamableHttp"`) or `"sse"`): pins the transport.
/// - `prefix` (string; default the id), `tools` (`{"allow": [...], "deny": [...]}`),
///   `timeouts` (`{"connect", "request", "toolCall"}` in seconds; defaults 10, 60, 300),
///   `reconnect` (`"never"` or `{"initialDelay", "maxDelay", "maxAttempts"}`; defaults 1 s, 60 s, unlimited),
///   `disabled` (boolean; default false).
extension ConfigDecoder {
    /// The server, or `nil` when any of its fields has a problem (all of which are reported).
    func decodeServer(id: String, _ reader: JSONReader, separator: String) -> ServerSpec? {
        let before = context.problems.count
        guard let object = reader.object(known: ServerSpec.keys) else { return nil }
        let transport = decodeTransport(object)
        var prefix = id
        if let field = object["prefix"], let text = field.string() {
            if let finding = ConfigRules.checkPrefix(text, separator: separator) { field.report(finding) }
            prefix = text
        }
        let toolFilter = object["tools"].map(decodeToolFilter) ?? ToolFilter()
        let timeouts = object["timeouts"].map(decodeTimeouts) ?? Timeouts()
        let reconnect = object["reconnect"].map(decodeReconnect) ?? .default
        let disabled = object["disabled"]?.bool() ?? false
        guard let transport, context.problems.count == before else { return nil }
        return ServerSpec(
            id: id,
            transport: transport,
            prefix: prefix,
            toolFilter: toolFilter,
            timeouts: timeouts,
            reconnect: reconnect,
            disabled: disabled
        )
    }
}
