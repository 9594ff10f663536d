import YrdenProtocol

/// One `remotes[]` item of a `server.json` as a remote entry: `streamable-http` is `"type": "http"`, `sse` is
/// `"type": "sse"`; the URL's `{variables}` and each header filled in as any input (a secret header such as
/// `Authorization: Bearer {token}` becomes `Bearer ${TOKEN}`).
enum RegistryRemote {
    static func convert(_ item: JSONValue, path: String) throws(RegistryEntryError) -> RegistryConversion {
        guard let remote = item.objectValue else {
            throw RegistryEntryError([
                ConfigProblem(path: path, message: "the remote is \(item.typeName), not an object", fix: "")
            ])
        }
        let kind: String
        switch remote["type"]?.stringValue {
        case "streamable-http": kind = "http"
        case "sse": kind = "sse"
        case let other:
            throw RegistryEntryError([
                ConfigProblem(
                    path: path + ".type",
                    message: other.map { "remote type \($0.quoted) is not one this gateway speaks" }
                        ?? "type is missing",
                    fix: "\"streamable-http\" or \"sse\""
                )
            ])
        }
        guard let url = remote["url"]?.stringValue, !url.isEmpty else {
            throw RegistryEntryError([
                ConfigProblem(path: path + ".url", message: "url is missing", fix: "the remote's https URL")
            ])
        }
        var inputs = RegistryInputs()
        var urlInput = JSONObject()
        urlInput["value"] = .string(url)
        if let variables = remote["variables"] { urlInput["variables"] = variables }
        let filledURL = inputs.text(of: urlInput, path: path + ".url", variable: "URL", label: "url") ?? url
        var headers = JSONObject()
        for (index, header) in (remote["headers"]?.arrayValue ?? []).enumerated() {
            let headerPath = "\(path).headers[\(index)]"
            guard let object = header.objectValue, let name = object["name"]?.stringValue, !name.isEmpty else {
                throw RegistryEntryError([
                    ConfigProblem(path: headerPath + ".name", message: "a header has no name", fix: "")
                ])
            }
            if let text = inputs.text(of: object, path: headerPath, variable: name, label: "header \(name)") {
                headers[name] = .string(text)
            }
        }
        guard inputs.problems.isEmpty else { throw RegistryEntryError(inputs.problems) }
        var entry = JSONObject()
        entry["url"] = .string(filledURL)
        entry["type"] = .string(kind)
        if !headers.isEmpty { entry["headers"] = .object(headers) }
        return RegistryConversion(entry: entry, source: path, notes: inputs.notes)
    }
}
