import YrdenProtocol

/// One entry of `mcpServers`.
///
/// Keys, all optional except that exactly one of `command` and `url` must be present:
/// - `command` (string), `args` (array of strings), `env` (object of strings), `cwd` (string): a stdio server.
/// - `url` (absolute http/https URL), `headers` (object of strings), `auth` (object): a remote server.
/// - `type` (`"stdio"`, `"http"` (also `"streamable-http"`, `"streamableHttp"`) or `"sse"`): pins the transport.
/// - `prefix` (string; default the id), `tools` (`{"allow": [...], "deny": [...]}`),
///   `timeouts` (`{"connect", "request", "toolCall", "discover"}` in seconds; defaults 10, 60, 300, 5),
///   `reconnect` (`"never"` or `{"initialDelay", "maxDelay", "maxAttempts"}`; defaults 1 s, 60 s, unlimited),
///   `protocol` (`"auto"`, `"2026-07-28"` or `"2025-11-25"`; default `"auto"`: probe, then fall back),
///   `disabled` (boolean; default false).
///
/// Hosts' keys (``HostKeys/server``) are accepted: Cline's `timeout` and `transportType`, Windsurf's `serverUrl`
/// and `disabledTools` are read as the Yrden keys they mean; the others are ignored with a notice.
extension ConfigDecoder {
    /// The server, or `nil` when any of its fields has a problem (all of which are reported).
    func decodeServer(id: String, _ reader: JSONReader, separator: String) -> ServerSpec? {
        let before = context.problems.count
        guard let object = reader.object(known: ServerSpec.keys, hostKeys: .server) else { return nil }
        let transport = decodeTransport(object)
        var prefix = id
        if let field = object["prefix"], let text = field.string() {
            if let finding = ConfigRules.checkPrefix(text, separator: separator) { field.report(finding) }
            prefix = text
        }
        var toolFilter = object["tools"].map(decodeToolFilter) ?? ToolFilter()
        if let disabledTools = object["disabledTools"]?.stringArray() {
            toolFilter.deny += disabledTools.filter { !toolFilter.deny.contains($0) }
        }
        var timeouts = object["timeouts"].map(decodeTimeouts) ?? Timeouts()
        if let toolCall = decodeHostTimeout(object) { timeouts.toolCall = toolCall }
        let reconnect = object["reconnect"].map(decodeReconnect) ?? .default
        let protocolEra = object["protocol"].map(decodeProtocol) ?? .auto
        if protocolEra == .modern, case .sse? = transport {
            object["protocol"]?.report(
                "the legacy HTTP+SSE transport has no 2026-07-28 era",
                fix: "remove \"protocol\", or use Streamable HTTP (\"type\": \"http\")"
            )
        }
        let disabled = object["disabled"]?.bool() ?? false
        // With no new problem, a missing transport means one of its values held an unresolved reference.
        guard context.problems.count == before, let transport = transport ?? writtenTransport(object) else {
            return nil
        }
        return ServerSpec(
            id: id,
            transport: transport,
            prefix: prefix,
            toolFilter: toolFilter,
            timeouts: timeouts,
            reconnect: reconnect,
            protocolEra: protocolEra,
            disabled: disabled
        )
    }

    /// Cline's `timeout`: seconds to wait for a tool call's answer, which is `timeouts.toolCall`. Both at once
    /// is a problem, since they would disagree sooner or later.
    private func decodeHostTimeout(_ object: ObjectReader) -> Duration? {
        guard let field = object["timeout"] else { return nil }
        if object["timeouts"]?.value.objectValue?["toolCall"].map({ $0 != .null }) == true {
            field.report(
                "\"timeout\" (Cline's tool-call timeout) and \"timeouts.toolCall\" are both set",
                fix: "keep only \"timeouts.toolCall\""
            )
            return nil
        }
        return field.seconds()
    }

    /// The transport as written, for a server that will not be started because a value in it holds an
    /// unresolved reference: only its kind is ever shown.
    private func writtenTransport(_ object: ObjectReader) -> TransportSpec? {
        if let command = object["command"]?.writtenString {
            return .stdio(command: command, args: [], env: [:], cwd: nil)
        }
        guard let url = urlField(object)?.writtenString else { return nil }
        let type = (object["type"] ?? object["transportType"])?.writtenString
        if type == "sse" { return .sse(url: url, headers: [:], auth: .none) }
        if type == "websocket" { return .websocket(url: url, headers: [:], auth: .none) }
        return .http(url: url, headers: [:], auth: .none, fallbackToSSE: type == nil)
    }
}
