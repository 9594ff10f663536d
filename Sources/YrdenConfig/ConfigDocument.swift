import YrdenProtocol

/// A configuration as written: the JSON object of the file, `${VAR}` references unexpanded, keys in file order.
///
/// ``GatewayConfig`` is what the gateway runs; this is what gets edited and written back. The admin API changes
/// servers here and saves ``serialized()``, so the file keeps `"Bearer ${TOKEN}"` instead of the secret it
/// expands to, and keeps the operator's key order. Decoding always goes through ``decoded(environment:source:)``,
/// the same path ``ConfigLoader`` uses, so an edited document is judged exactly like a file.
package struct ConfigDocument: Sendable, Hashable {
    /// The top-level object, as written, except that VS Code's `servers` is held as `mcpServers` (see
    /// ``writtenServersKey``), so everything that reads or edits the document finds the servers in one place.
    package internal(set) var root: JSONObject
    /// The key the file holds its servers under: `mcpServers`, or `servers` for a VS Code `mcp.json`, which
    /// ``serialized()`` writes back so the host can still read the file.
    package internal(set) var writtenServersKey = Self.serversKey

    /// A document with these top-level members; `ConfigDocument()` is the empty config `{}`.
    package init(_ root: JSONObject = JSONObject()) {
        self.root = Self.droppingNullProfiles(root)
    }

    /// `root` without a `"profiles": null`. Null reads as absent, as it does for every key, and is not kept:
    /// the document is shown back as written, and `profiles` is shown as an object or not at all.
    static func droppingNullProfiles(_ root: JSONObject) -> JSONObject {
        var root = root
        while root[profilesKey] == .null { root[profilesKey] = nil }
        return root
    }

    /// Parses a config file's bytes (a UTF-8 byte order mark is skipped).
    ///
    /// Throws the problems ``ConfigLoader`` would report for the same bytes before decoding: a syntax error by
    /// line and column, an empty file, or a document that is not an object.
    package init(parsing bytes: [UInt8], source: String) throws(ConfigError) {
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONValue.parse(text)
        } catch {
            throw ConfigError(source: source, problems: [ConfigLoader.parseProblem(error, in: text)])
        }
        guard case .object(let root) = value else {
            // The decoder owns the wording of "must be an object"; asking it keeps one message.
            let context = DecodingContext(environment: [:])
            _ = ConfigDecoder(context: context).decodeDocument(value)
            throw ConfigError(source: source, problems: context.problems)
        }
        self.root = Self.droppingNullProfiles(root)
        if root[Self.serversKey] == nil, root[Self.vsCodeServersKey] != nil {
            self.root = Self.renamingKey(Self.vsCodeServersKey, to: Self.serversKey, in: root)
            writtenServersKey = Self.vsCodeServersKey
        }
    }

    static let vsCodeServersKey = "servers"

    /// `object` with `key` renamed, in place so the file keeps its order.
    static func renamingKey(_ key: String, to newKey: String, in object: JSONObject) -> JSONObject {
        JSONObject(object.map { ($0.key == key ? newKey : $0.key, $0.value) })
    }

    /// ``GatewayConfig/embeddedDefaultJSON`` as a document, for a gateway started without a config file.
    package static let embeddedDefault = try! ConfigDocument(
        parsing: Array(GatewayConfig.embeddedDefaultJSON.utf8),
        source: "embedded default"
    )

    /// The whole document as one JSON value.
    package var json: JSONValue { .object(root) }

    /// Decodes and validates the document: `${VAR}` expanded from `environment`, `YRDEN_*` overrides applied,
    /// then the check that a listener other machines can reach has an admin token.
    ///
    /// Throws every problem found, with `source` as the ``ConfigError/source``.
    package func decoded(environment: [String: String], source: String) throws(ConfigError) -> GatewayConfig {
        try checked(environment: environment, source: source).config
    }

    /// ``decoded(environment:source:)``, plus the notices: hosts' keys that are ignored or read as Yrden keys,
    /// which do not stop the file from loading but which an operator checking it should see.
    package func checked(
        environment: [String: String],
        source: String
    ) throws(ConfigError) -> (config: GatewayConfig, notices: [ConfigProblem]) {
        let context = DecodingContext(environment: environment)
        if writtenServersKey != Self.serversKey {
            context.notice(
                JSONPath.root.appending(key: writtenServersKey),
                "\"\(writtenServersKey)\" (VS Code's name) is read as \"mcpServers\"",
                fix: "nothing to do; problems name its entries mcpServers.<id>, and changes are saved under"
                    + " \"\(writtenServersKey)\""
            )
        }
        var config = ConfigDecoder(context: context).decodeDocument(json)
        EnvironmentOverrides.apply(to: &config.gateway, environment: environment, context: context)
        let settled = !context.hasProblem(at: "gateway.listen") && !context.hasProblem(at: "gateway.adminToken")
        if settled, let problem = config.gateway.exposureProblem {
            context.report(problem)
        }
        guard context.problems.isEmpty else {
            throw ConfigError(source: source, problems: context.problems)
        }
        return (config, context.notices)
    }

    /// The document as indented JSON with a trailing newline, ready to be written back to the file, with its
    /// servers under the key the file had.
    package func serialized() -> [UInt8] {
        guard writtenServersKey != Self.serversKey else { return json.prettySerialized() }
        return JSONValue.object(Self.renamingKey(Self.serversKey, to: writtenServersKey, in: root)).prettySerialized()
    }
}
