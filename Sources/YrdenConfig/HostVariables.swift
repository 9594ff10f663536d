/// The `${...}` spellings that desktop hosts' config files use besides `${NAME}`, and what the gateway makes of
/// them, so that a file copied from a host either works or says exactly what to change.
///
/// - `${env:NAME}` (VS Code, Cursor, Windsurf) reads the environment like `${NAME}`.
/// - `${input:ID}` (VS Code) asks the person at the editor for a value; the gateway has nobody to ask, so the
///   reference stays unresolved and names the fix: an environment variable.
/// - `${userHome}` (VS Code, Cursor) is `HOME` when no variable of that name is set.
/// - `${workspaceFolder}` (VS Code, Cursor) is the editor's open folder, which the gateway has not got; when no
///   variable of that name is set, the message says so instead of calling it an unset environment variable.
enum HostVariables {
    static let envPrefix = "env:"
    static let inputPrefix = "input:"

    /// The value a host variable stands for when the environment has no variable of its name.
    static func standIn(for name: String, environment: [String: String]) -> String? {
        name == "userHome" ? environment["HOME"] : nil
    }

    /// `env:NAME` as `NAME`; any other body unchanged.
    static func strippingEnvPrefix(_ body: String) -> String {
        body.hasPrefix(envPrefix) ? String(body.dropFirst(envPrefix.count)) : body
    }

    static func inputPrompt(_ body: String) -> Finding {
        let id = body.dropFirst(inputPrefix.count)
        let suggested = ConfigRules.suggestedName(for: String(id)).uppercased().replacing("-", with: "_")
        return Finding(
            message: "${\(body)} is a VS Code input prompt, which the gateway cannot show",
            fix: "set an environment variable where the gateway runs and write ${\(suggested)} instead",
            unresolvedReference: "${\(body)}"
        )
    }

    static func unset(_ name: String) -> Finding {
        let fix =
            "set it where the gateway runs and restart the gateway (it reads its environment once), or write"
            + " ${\(name):-default}"
        switch name {
        case "workspaceFolder", "workspaceFolderBasename":
            return Finding(
                message: "${\(name)} is the editor's open folder, which the gateway does not have",
                fix: "write the folder's absolute path instead",
                unresolvedReference: name
            )
        case "userHome":
            return Finding(
                message: "${userHome} is the editor's name for HOME, and HOME is not set either",
                fix: "set HOME where the gateway runs, or write the absolute path",
                unresolvedReference: name
            )
        default:
            return Finding(message: "environment variable \(name) is not set", fix: fix, unresolvedReference: name)
        }
    }
}
