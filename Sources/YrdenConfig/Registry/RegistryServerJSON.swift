import YrdenProtocol

/// A server published in the MCP registry (its `server.json`, schema 2025-12-11) made into an `mcpServers` entry.
///
/// Users find servers in the registry, not as hand-written commands; this reads the publisher's description of
/// how to run or reach a server and writes the entry an operator would have written: a package becomes the
/// command of its registry's runner, a remote its URL and headers, and every input the publisher marked
/// required or secret a `${VAR}` reference, so no secret is ever written into the config and the server is
/// kept but not started until the operator sets what the notes name. Pure: no I/O, no environment.
package enum RegistryServerJSON {
    /// The schema this reader follows.
    package static let currentSchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

    /// Packages or remotes read from one file at most: each is converted, on the caller's thread.
    static let maxCandidates = 100

    /// The dated schemas with the same camelCase fields the reader uses (older ones spelled them snake_case).
    static let readableSchemas: Set<String> = [
        "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
        "https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json",
        currentSchema,
    ]

    /// Whether a body posted as a new server is a `server.json` (or a registry API answer holding one in
    /// `server`) rather than `{"id", "config"}`: it has no `config` and has `$schema`, `packages` or `remotes`.
    package static func isServerJSON(_ body: JSONValue) -> Bool {
        guard let object = body.objectValue, object["config"] == nil, object["id"] == nil else { return false }
        if object["$schema"] != nil || object["packages"] != nil || object["remotes"] != nil { return true }
        return object["server"]?.objectValue.map { $0["$schema"] != nil || $0["name"] != nil } ?? false
    }

    /// The entry for `document`, from the candidate `choice` names (`packages[1]`, `remotes[0]`) or else the
    /// first usable package, then the first usable remote. Every problem that stops it is thrown at once, each
    /// naming its field.
    package static func convert(
        _ document: JSONValue,
        choice: String? = nil
    ) throws(RegistryEntryError) -> RegistryConversion {
        var server = document
        var base = ""
        if document["$schema"] == nil, let inner = document["server"], inner.objectValue != nil {
            server = inner
            base = "server."
        }
        guard let object = server.objectValue else {
            throw RegistryEntryError([
                ConfigProblem(
                    path: "",
                    message: "the server.json is \(server.typeName), not an object",
                    fix: "send the server.json as published in the MCP registry"
                )
            ])
        }
        let name = try header(of: object, base: base)
        let candidates = try candidateList(object, base: base)
        let chosen = try pick(candidates, choice: choice, base: base)
        var conversion = chosen
        conversion.suggestedID = RegistryServerID.make(fromName: name)
        conversion.name = name
        conversion.version = object["version"]?.stringValue
        return conversion
    }

    /// The `$schema` and `name` every file must have.
    private static func header(of object: JSONObject, base: String) throws(RegistryEntryError) -> String {
        var problems: [ConfigProblem] = []
        switch object["$schema"] {
        case .string(let schema) where readableSchemas.contains(schema):
            break
        case .string(let schema):
            problems.append(
                ConfigProblem(
                    path: base + "$schema",
                    message: "unknown server.json schema \(schema.quoted)",
                    fix: "use a server.json of schema \(currentSchema.quoted) (2025-10-17 and 2025-09-29 read too)"
                )
            )
        case nil:
            problems.append(
                ConfigProblem(
                    path: base + "$schema",
                    message: "$schema is missing",
                    fix: "a registry server.json names its schema: \"$schema\": \(currentSchema.quoted)"
                )
            )
        case .some(let other):
            problems.append(
                ConfigProblem(
                    path: base + "$schema",
                    message: "$schema is \(other.typeName), not a string",
                    fix: "\"$schema\": \(currentSchema.quoted)"
                )
            )
        }
        let name = object["name"]?.stringValue ?? ""
        if name.isEmpty {
            problems.append(
                ConfigProblem(
                    path: base + "name",
                    message: object["name"] == nil ? "name is missing" : "name is not a non-empty string",
                    fix: "the registry name of the server, such as \"io.github.owner/weather\""
                )
            )
        }
        guard problems.isEmpty else { throw RegistryEntryError(problems) }
        return name
    }

    /// Every package and remote, each made into an entry or the reason it cannot be one.
    private static func candidateList(
        _ object: JSONObject,
        base: String
    ) throws(RegistryEntryError) -> [(path: String, result: Result<RegistryConversion, RegistryEntryError>)] {
        var candidates: [(path: String, result: Result<RegistryConversion, RegistryEntryError>)] = []
        for key in ["packages", "remotes"] {
            guard let field = object[key] else { continue }
            guard let items = field.arrayValue else {
                throw RegistryEntryError([
                    ConfigProblem(
                        path: base + key,
                        message: "\(key) is \(field.typeName), not an array",
                        fix: "\(key) is a list of objects"
                    )
                ])
            }
            guard items.count <= maxCandidates else {
                throw RegistryEntryError([
                    ConfigProblem(
                        path: base + key,
                        message: "\(key) lists \(items.count) items, more than \(maxCandidates)",
                        fix: "a published server lists a few ways to run it; keep the one to add"
                    )
                ])
            }
            for (index, item) in items.enumerated() {
                let path = "\(base)\(key)[\(index)]"
                let result: Result<RegistryConversion, RegistryEntryError>
                do throws(RegistryEntryError) {
                    result = .success(
                        key == "packages"
                            ? try RegistryPackage.convert(item, path: path)
                            : try RegistryRemote.convert(item, path: path)
                    )
                } catch {
                    result = .failure(error)
                }
                candidates.append((path, result))
            }
        }
        return candidates
    }

    private static func pick(
        _ candidates: [(path: String, result: Result<RegistryConversion, RegistryEntryError>)],
        choice: String?,
        base: String
    ) throws(RegistryEntryError) -> RegistryConversion {
        if let choice {
            guard let candidate = candidates.first(where: { $0.path == base + choice }) else {
                let names = candidates.map(\.path).joined(separator: ", ")
                throw RegistryEntryError([
                    ConfigProblem(
                        path: base + choice,
                        message: "the server.json has no \(choice)",
                        fix: names.isEmpty ? "the file lists no package or remote" : "choose one of: \(names)"
                    )
                ])
            }
            return try candidate.result.get()
        }
        var skipped: [String] = []
        var problems: [ConfigProblem] = []
        for candidate in candidates {
            switch candidate.result {
            case .success(var conversion):
                conversion.notes.insert(contentsOf: skipped, at: 0)
                return conversion
            case .failure(let error):
                skipped.append(
                    "\(candidate.path) skipped: "
                        + error.problems.map { "\($0.path): \($0.message)" }.joined(separator: "; ")
                )
                problems.append(contentsOf: error.problems)
            }
        }
        if candidates.isEmpty {
            problems.append(
                ConfigProblem(
                    path: base + "packages",
                    message: "the server.json has no packages and no remotes",
                    fix: "a server to add needs a package (pypi, npm, oci, mcpb) or a remote (streamable-http, sse)"
                )
            )
        }
        throw RegistryEntryError(problems)
    }
}

/// What a `server.json` became: the entry, where in the file it came from, and what the operator must do.
package struct RegistryConversion: Sendable, Equatable {
    /// The `mcpServers` entry.
    package var entry: JSONObject
    /// `packages[0]` or `remotes[1]`: which way of running the server the entry takes.
    package var source: String
    /// Each variable to set (and what it is for), and each candidate skipped and why.
    package var notes: [String]
    /// A bundle (`mcpb`) the entry needs downloaded and checked first.
    package var bundle: RegistryBundle?
    /// A server id made from `name` (`io.github.owner/weather-mcp` → `weather-mcp`).
    package var suggestedID = ""
    /// The registry name and version, for logs.
    package var name = ""
    package var version: String?

    init(entry: JSONObject, source: String, notes: [String], bundle: RegistryBundle? = nil) {
        self.entry = entry
        self.source = source
        self.notes = notes
        self.bundle = bundle
    }
}

/// An MCPB bundle to fetch: its URL, the SHA-256 the file must have, and the field that said so.
package struct RegistryBundle: Sendable, Equatable {
    package var url: String
    package var sha256: String
    package var path: String
}

/// A `server.json` that cannot be added, with every problem found, each naming its field.
package struct RegistryEntryError: Error, Sendable, CustomStringConvertible {
    package var problems: [ConfigProblem]

    package init(_ problems: [ConfigProblem]) {
        self.problems = problems
    }

    package var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}
