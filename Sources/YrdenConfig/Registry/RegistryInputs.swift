import YrdenProtocol

/// The inputs of a `server.json` (environment variables, arguments, headers, URL variables) as text for the
/// config: a fixed `value` as it is (its `{variables}` filled in), a `default` as `${VAR:-default}`, and an
/// input marked required or secret as `${VAR}`, noted so the operator knows what to set. Literal text has each
/// `$` doubled, so nothing the publisher wrote is read as a reference.
struct RegistryInputs {
    /// What to set, and the optional inputs left out, one line each.
    private(set) var notes: [String] = []
    private(set) var problems: [ConfigProblem] = []

    /// The text for `input` at `path`, or nil for an optional input without a value (left out, noted).
    /// `variable` is the name a reference to it takes when the publisher gave no value.
    mutating func text(of input: JSONObject, path: String, variable: String, label: String) -> String? {
        if let value = input["value"] {
            guard let text = value.stringValue else {
                problems.append(
                    ConfigProblem(path: path + ".value", message: "value is \(value.typeName), not a string", fix: "")
                )
                return nil
            }
            return filled(text, variables: input["variables"]?.objectValue, path: path)
        }
        return reference(to: input, variable: Self.variableName(variable), label: label)
    }

    /// `${VAR:-default}`, `${VAR}` (noted), or nil for an optional input (noted).
    private mutating func reference(to input: JSONObject, variable: String, label: String) -> String? {
        let description = input["description"]?.stringValue.map { ": \($0)" } ?? ""
        let secret = input["isSecret"]?.boolValue == true
        if let fallback = input["default"]?.stringValue, !fallback.contains("}") {
            notes.append("\(label) is ${\(variable)} (default \(fallback.quoted))\(description)")
            return "${\(variable):-\(Self.literal(fallback))}"
        }
        if input["isRequired"]?.boolValue == true || secret {
            let kind = secret ? "secret" : "required"
            notes.append(
                "set \(variable) in the gateway's environment (\(kind), \(label))\(description); "
                    + "the server is not started until it is set"
            )
            return "${\(variable)}"
        }
        notes.append("\(label) is optional and left out\(description)")
        return nil
    }

    /// `text` with each `{name}` of `variables` replaced by that variable's own text; a `{name}` that no
    /// variable defines stays as written, as the schema says.
    private mutating func filled(_ text: String, variables: JSONObject?, path: String) -> String {
        var output = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            output += Self.literal(String(rest[..<open]))
            guard let close = rest[open...].firstIndex(of: "}") else {
                output += Self.literal(String(rest[open...]))
                return output
            }
            let name = String(rest[rest.index(after: open)..<close])
            if let variable = variables?[name]?.objectValue {
                let inner = self.text(
                    of: variable,
                    path: "\(path).variables.\(name)",
                    variable: name,
                    label: "{\(name)}"
                )
                output += inner ?? ""
            } else {
                output += Self.literal(String(rest[open...close]))
            }
            rest = rest[rest.index(after: close)...]
        }
        return output + Self.literal(String(rest))
    }

    /// `text` as a config string that expands to itself.
    static func literal(_ text: String) -> String {
        text.contains("$") ? text.replacing("$", with: "$$") : text
    }

    /// A variable name (`[A-Za-z_][A-Za-z0-9_]*`) from an input's name: `X-API-Key` → `X_API_KEY`,
    /// `--port` → `PORT`, `api_key` → `API_KEY`.
    static func variableName(_ name: String) -> String {
        let trimmed = name.drop { $0 == "-" }
        var result = ""
        for scalar in trimmed.unicodeScalars {
            switch scalar {
            case "a"..."z": result.unicodeScalars.append(Unicode.Scalar(scalar.value - 32)!)
            case "A"..."Z", "0"..."9", "_": result.unicodeScalars.append(scalar)
            default: result.append("_")
            }
        }
        if result.isEmpty { return "VALUE" }
        if let first = result.unicodeScalars.first, ("0"..."9").contains(first) { return "_" + result }
        return processVariables.contains(result) ? "MCP_" + result : result
    }

    /// Names the gateway's own process depends on: a URL variable `{path}` must not read the gateway's `PATH`.
    static let processVariables: Set<String> = [
        "PATH", "HOME", "USER", "SHELL", "PWD", "LANG", "TERM", "TMPDIR", "HOSTNAME", "LOGNAME", "IFS",
    ]
}
