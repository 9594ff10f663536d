import YrdenProtocol

/// One `packages[]` item of a `server.json` as a stdio entry: `pypi` run by `uvx name==version`, `npm` by
/// `npx -y name@version`, `oci` by `podman run -i --rm image` (podman: daemonless and rootless, with Docker's
/// command line; its environment reaches the container only through `-e NAME`, which the entry adds for each
/// variable), `mcpb` a bundle the gateway downloads and checks against `fileSha256`. The runtime's arguments
/// come before the package, the package's after it.
enum RegistryPackage {
    static let runnableTypes = ["pypi", "npm", "oci", "mcpb"]

    static func convert(_ item: JSONValue, path: String) throws(RegistryEntryError) -> RegistryConversion {
        guard let package = item.objectValue else {
            throw RegistryEntryError([
                ConfigProblem(path: path, message: "the package is \(item.typeName), not an object", fix: "")
            ])
        }
        let type = try registryType(package, path: path)
        try requireStdio(package, path: path)
        let identifier = package["identifier"]?.stringValue ?? ""
        guard !identifier.isEmpty else {
            throw RegistryEntryError([
                ConfigProblem(
                    path: path + ".identifier",
                    message: "identifier is missing",
                    fix: "the package's name in its registry (an image reference for oci, a download URL for mcpb)"
                )
            ])
        }
        let version = package["version"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        var inputs = RegistryInputs()
        var env = JSONObject()
        var envNames: [String] = []
        for (index, variable) in (package["environmentVariables"]?.arrayValue ?? []).enumerated() {
            let itemPath = "\(path).environmentVariables[\(index)]"
            guard let object = variable.objectValue, let name = object["name"]?.stringValue, !name.isEmpty else {
                throw RegistryEntryError([
                    ConfigProblem(path: itemPath + ".name", message: "an environment variable has no name", fix: "")
                ])
            }
            if let text = inputs.text(of: object, path: itemPath, variable: name, label: "environment variable \(name)")
            {
                env[name] = .string(text)
                envNames.append(name)
            }
        }
        let runtime = try arguments(package["runtimeArguments"], path: path + ".runtimeArguments", inputs: &inputs)
        let trailing = try arguments(package["packageArguments"], path: path + ".packageArguments", inputs: &inputs)
        guard inputs.problems.isEmpty else { throw RegistryEntryError(inputs.problems) }

        var command: String
        var args: [String] = []
        var bundle: RegistryBundle?
        switch type {
        case "pypi":
            command = "uvx"
            args = runtime + [version.map { "\(identifier)==\($0)" } ?? identifier] + trailing
        case "npm":
            command = "npx"
            args = ["-y"]
            if let base = package["registryBaseUrl"]?.stringValue, base != "https://registry.npmjs.org" {
                args += ["--registry", base]
            }
            args += runtime + [version.map { "\(identifier)@\($0)" } ?? identifier] + trailing
        case "oci":
            command = "podman"
            let image = version.map {
                identifier.contains(":") || identifier.contains("@") ? identifier : "\(identifier):\($0)"
            }
            args =
                ["run", "-i", "--rm"] + envNames.flatMap { ["-e", $0] } + runtime + [image ?? identifier] + trailing
        default:
            let bundleFile = try bundleOf(package, identifier: identifier, path: path)
            bundle = bundleFile
            command = "mcpb"
            args = trailing
        }
        var entry = JSONObject()
        entry["command"] = .string(command)
        entry["args"] = .array(args.map { .string($0) })
        if !env.isEmpty { entry["env"] = .object(env) }
        return RegistryConversion(entry: entry, source: path, notes: inputs.notes, bundle: bundle)
    }

    private static func registryType(_ package: JSONObject, path: String) throws(RegistryEntryError) -> String {
        let type = package["registryType"]?.stringValue
        guard let type, runnableTypes.contains(type) else {
            let said =
                type.map { "registryType \($0.quoted) is not one this gateway runs" } ?? "registryType is missing"
            throw RegistryEntryError([
                ConfigProblem(
                    path: path + ".registryType",
                    message: said,
                    fix: "a package of registryType \(runnableTypes.map(\.quoted).joined(separator: ", ")), or a remote"
                )
            ])
        }
        return type
    }

    /// A package that serves HTTP itself needs starting and a port, which one entry cannot say.
    private static func requireStdio(_ package: JSONObject, path: String) throws(RegistryEntryError) {
        let transport = package["transport"]?["type"]?.stringValue
        guard transport == "stdio" else {
            throw RegistryEntryError([
                ConfigProblem(
                    path: path + ".transport.type",
                    message: transport.map { "transport \($0.quoted) is not stdio" } ?? "transport.type is missing",
                    fix: "the gateway starts packages of transport stdio; run an HTTP package yourself and add its URL"
                )
            ])
        }
    }

    private static func bundleOf(
        _ package: JSONObject,
        identifier: String,
        path: String
    ) throws(RegistryEntryError) -> RegistryBundle {
        var problems: [ConfigProblem] = []
        if !isBundleURL(identifier) {
            problems.append(
                ConfigProblem(
                    path: path + ".identifier",
                    message:
                        "an mcpb identifier must be an https URL (or http to a loopback address), not \(identifier.quoted)",
                    fix: "the bundle's download URL"
                )
            )
        }
        let digest = package["fileSha256"]?.stringValue ?? ""
        let isHex =
            digest.utf8.count == 64 && digest.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
        if !isHex {
            problems.append(
                ConfigProblem(
                    path: path + ".fileSha256",
                    message: package["fileSha256"] == nil
                        ? "fileSha256 is missing" : "fileSha256 is not 64 lowercase hexadecimal digits",
                    fix: "an mcpb package names the SHA-256 of its file, which the download must match"
                )
            )
        }
        guard problems.isEmpty else { throw RegistryEntryError(problems) }
        return RegistryBundle(url: identifier, sha256: digest, path: path + ".fileSha256")
    }

    /// https, or plain http to this machine only (a bundle served beside the gateway, as tests do).
    static func isBundleURL(_ url: String) -> Bool {
        if url.hasPrefix("https://") { return true }
        return ["127.0.0.1", "localhost", "[::1]"].contains { host in
            url.hasPrefix("http://\(host)/") || url.hasPrefix("http://\(host):")
        }
    }

    /// `runtimeArguments` or `packageArguments` as words: a positional one its value (or a reference to its
    /// `valueHint`), a named one its flag and then its value as two words (`-e NAME`, `--port 8080`), which
    /// every runner and Docker's command line read alike.
    private static func arguments(
        _ field: JSONValue?,
        path: String,
        inputs: inout RegistryInputs
    ) throws(RegistryEntryError) -> [String] {
        guard let field else { return [] }
        guard let items = field.arrayValue else {
            throw RegistryEntryError([
                ConfigProblem(path: path, message: "the arguments are \(field.typeName), not an array", fix: "")
            ])
        }
        var words: [String] = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard let argument = item.objectValue else {
                throw RegistryEntryError([
                    ConfigProblem(path: itemPath, message: "an argument is \(item.typeName), not an object", fix: "")
                ])
            }
            switch argument["type"]?.stringValue {
            case "positional":
                let hint = argument["valueHint"]?.stringValue ?? "argument_\(index)"
                if let text = inputs.text(of: argument, path: itemPath, variable: hint, label: "argument \(hint)") {
                    words.append(text)
                }
            case "named":
                guard let flag = argument["name"]?.stringValue, !flag.isEmpty else {
                    throw RegistryEntryError([
                        ConfigProblem(path: itemPath + ".name", message: "a named argument has no name", fix: "")
                    ])
                }
                let takesNoValue = argument["value"] == nil && argument["format"]?.stringValue == "boolean"
                if takesNoValue {
                    if argument["isRequired"]?.boolValue == true || argument["default"]?.stringValue == "true" {
                        words.append(RegistryInputs.literal(flag))
                    }
                } else if let text = inputs.text(
                    of: argument,
                    path: itemPath,
                    variable: flag,
                    label: "argument \(flag)"
                ) {
                    words += [RegistryInputs.literal(flag), text]
                }
            default:
                throw RegistryEntryError([
                    ConfigProblem(
                        path: itemPath + ".type",
                        message: "an argument's type is \(argument["type"]?.jsonText ?? "missing")",
                        fix: "\"positional\" or \"named\""
                    )
                ])
            }
        }
        return words
    }
}
