import YrdenProtocol

/// An unpacked MCPB bundle's `manifest.json` as the stdio entry it describes: `server.mcp_config`'s command,
/// args and env (else the runner of `server.type` with `server.entry_point`), `${__dirname}` the bundle's folder
/// and each `${user_config.X}` a `${VAR}` reference (with its default, or noted as what to set, as the
/// registry's own inputs are), `cwd` the bundle's folder. Pure.
package enum MCPBManifest {
    /// The entry for the bundle unpacked at `folder`, with the notes of what to set; `path` names the
    /// package in the server.json for problems.
    package static func entry(
        manifest: JSONValue,
        folder: String,
        path: String
    ) throws(RegistryEntryError) -> (entry: JSONObject, notes: [String]) {
        func problem(_ message: String, _ fix: String = "") -> RegistryEntryError {
            RegistryEntryError([ConfigProblem(path: path, message: "the bundle's manifest.json: " + message, fix: fix)])
        }
        guard let server = manifest["server"]?.objectValue else {
            throw problem("server is missing", "an MCPB manifest says how to run its server in \"server\"")
        }
        let type = server["type"]?.stringValue ?? ""
        let entryPoint = server["entry_point"]?.stringValue
        var substitution = Substitution(folder: folder, userConfig: manifest["user_config"]?.objectValue ?? [:])
        var command: String
        var args: [String] = []
        var env = JSONObject()
        if let config = server["mcp_config"]?.objectValue {
            guard let written = config["command"]?.stringValue, !written.isEmpty else {
                throw problem("server.mcp_config.command is missing")
            }
            command = substitution.apply(written)
            for item in config["args"]?.arrayValue ?? [] {
                guard let text = item.stringValue else { throw problem("server.mcp_config.args holds a non-string") }
                args.append(substitution.apply(text))
            }
            for (name, value) in config["env"]?.objectValue ?? [:] {
                guard let text = value.stringValue else {
                    throw problem("server.mcp_config.env.\(name) is not a string")
                }
                env[name] = .string(substitution.apply(text))
            }
        } else {
            guard let entryPoint, !entryPoint.isEmpty, BundleZipCheck.unsafeName(entryPoint) == nil else {
                throw problem("server.entry_point is missing or leaves the bundle", "a path inside the bundle")
            }
            let file = RegistryInputs.literal(folder + "/" + entryPoint)
            switch type {
            case "node": (command, args) = ("node", [file])
            case "python": (command, args) = ("python3", [file])
            case "binary": command = file
            default:
                throw problem(
                    "server.type \(type.quoted) has no mcp_config to run it by",
                    "\"node\", \"python\" or \"binary\""
                )
            }
        }
        guard substitution.problems.isEmpty else { throw RegistryEntryError(substitution.problems) }
        var entry = JSONObject()
        entry["command"] = .string(command)
        entry["args"] = .array(args.map { .string($0) })
        if !env.isEmpty { entry["env"] = .object(env) }
        entry["cwd"] = .string(RegistryInputs.literal(folder))
        return (entry, substitution.notes)
    }

    /// MCPB's `${…}` in the manifest's text: `${__dirname}` the folder, `${pathSeparator}` and `${/}` a slash,
    /// `${user_config.X}` a reference, `${HOME}` left for the gateway's environment; anything else literal.
    private struct Substitution {
        let folder: String
        let userConfig: JSONObject
        var notes: [String] = []
        var problems: [ConfigProblem] = []
        private var noted: Set<String> = []

        init(folder: String, userConfig: JSONObject) {
            self.folder = folder
            self.userConfig = userConfig
        }

        mutating func apply(_ text: String) -> String {
            var output = ""
            var rest = Substring(text)
            while let start = rest.firstRange(of: "${") {
                output += RegistryInputs.literal(String(rest[..<start.lowerBound]))
                guard let close = rest[start.upperBound...].firstIndex(of: "}") else {
                    rest = rest[start.lowerBound...]
                    break
                }
                let name = String(rest[start.upperBound..<close])
                output += replacement(of: name)
                rest = rest[rest.index(after: close)...]
            }
            return output + RegistryInputs.literal(String(rest))
        }

        private mutating func replacement(of name: String) -> String {
            switch name {
            case "__dirname": return RegistryInputs.literal(folder)
            case "pathSeparator", "/": return "/"
            case "HOME": return "${HOME}"
            default: break
            }
            guard name.hasPrefix("user_config.") else { return "$${\(name)}" }
            let key = String(name.dropFirst("user_config.".count))
            let variable = RegistryInputs.variableName(key)
            let option = userConfig[key]?.objectValue ?? [:]
            let description = (option["description"] ?? option["title"])?.stringValue.map { ": \($0)" } ?? ""
            let fallback = option["default"].flatMap { value -> String? in
                switch value {
                case .string(let text): return text
                case .bool(let flag): return flag ? "true" : "false"
                case .int, .double: return value.jsonText
                default: return nil
                }
            }
            if let fallback, !fallback.contains("}"), !fallback.contains("${") {
                if noted.insert(variable).inserted {
                    notes.append("user_config \(key) is ${\(variable)} (default \(fallback.quoted))\(description)")
                }
                return "${\(variable):-\(RegistryInputs.literal(fallback))}"
            }
            if noted.insert(variable).inserted {
                let kind = option["sensitive"]?.boolValue == true ? "secret" : "required"
                notes.append(
                    "set \(variable) in the gateway's environment (\(kind), the bundle's user_config \(key))"
                        + "\(description); the server is not started until it is set"
                )
            }
            return "${\(variable)}"
        }
    }
}
