/// Keys that desktop hosts write into their MCP config files, so that a host's file loads as it is.
///
/// Yrden's own keys stay strict: a key that is neither Yrden's nor listed here is an error with a suggestion.
/// A host key is either *mapped* onto the Yrden key that means the same thing, or *ignored* with a notice
/// that says whose key it is and why the gateway has no use for it. Sources: the hosts' documented formats
/// (Claude Desktop `claude_desktop_config.json`, Cline `cline_mcp_settings.json`, VS Code `.vscode/mcp.json`,
/// Cursor `~/.cursor/mcp.json`, Windsurf `mcp_config.json`).
struct HostKeys: Sendable {
    /// Accepted and read by the decoder as the Yrden key named in its documentation.
    var mapped: [String] = []
    /// Accepted, unused: key → the notice's message.
    var ignored: [String: String] = [:]

    static let none = HostKeys()

    /// Top level: VS Code's `servers` is read as `mcpServers`.
    static let topLevel = HostKeys(
        mapped: ["servers"],
        ignored: [
            "globalShortcut": "\"globalShortcut\" is a Claude Desktop setting; the gateway has no use for it",
            "inputs": "\"inputs\" defines VS Code input prompts, which the gateway cannot show; a ${input:...}"
                + " reference fails the server that uses it",
        ]
    )

    /// A server entry.
    ///
    /// - Cline's `timeout` (seconds to wait for a tool call's answer) is `timeouts.toolCall`, and its
    ///   `transportType` (`stdio`, `sse`, `streamableHttp`) is `type`.
    /// - Windsurf's `serverUrl` is `url`, and its `disabledTools` are added to `tools.deny`.
    static let server = HostKeys(
        mapped: ["timeout", "transportType", "serverUrl", "disabledTools"],
        ignored: [
            "autoApprove": "\"autoApprove\" is Cline's list of tools it runs without asking; the gateway never"
                + " asks, approval stays with the host that calls the gateway",
            "alwaysAllow": "\"alwaysAllow\" is a host's list of tools it runs without asking; the gateway never"
                + " asks, approval stays with the host that calls the gateway",
            "envFile": "\"envFile\" is not read by the gateway, so the server starts without the variables in"
                + " that file",
            "dev": "\"dev\" holds VS Code's watch-and-debug settings for server development; the gateway has no"
                + " use for them",
        ]
    )

    /// The fix a notice for `key` suggests.
    static func fix(for key: String) -> String {
        switch key {
        case "envFile":
            "copy what the server needs into \"env\" (with ${NAME} for secrets), or export it where"
                + " the gateway runs"
        case "inputs": "export the values the prompts ask for where the gateway runs and write ${NAME}"
        default: "nothing to do; remove the key to silence this notice"
        }
    }
}
