/// A `${...}` in a server entry that cannot be resolved where the gateway runs: an unset variable, or a host
/// feature such as VS Code's `${input:...}` prompt.
///
/// It fails that one server, not the file: the server is kept, never started, and shown as failed with this
/// message, so one missing token in a sample config does not take every other server down with it.
package struct UnresolvedReference: Sendable, Hashable, CustomStringConvertible {
    /// Where the reference is, as a config path (`mcpServers.remote.headers.Authorization`).
    package var path: String
    /// What cannot be resolved (`environment variable REMOTE_TOKEN is not set`).
    package var message: String
    /// What to do about it (`set it where the gateway runs and restart the gateway …`).
    package var fix: String

    package init(path: String, message: String, fix: String) {
        self.path = path
        self.message = message
        self.fix = fix
    }

    /// `<message> (<path>); <fix>`: one line an operator can act on.
    package var description: String {
        "\(message) (\(path)); \(fix)"
    }
}
