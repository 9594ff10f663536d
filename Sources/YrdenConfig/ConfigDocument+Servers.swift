import YrdenProtocol

/// The `mcpServers` entries of a document: what the admin API reads, adds, replaces and removes.
///
/// Entries are raw JSON, exactly as they will be written back; whether one is valid is a separate question,
/// answered by ``validatingEntry(_:id:environment:source:)``.
extension ConfigDocument {
    static let serversKey = "mcpServers"

    /// The ids in `mcpServers`, in document order; empty when the section is missing or not an object.
    package var serverIDs: [String] {
        guard case .object(let servers) = root[Self.serversKey] else { return [] }
        var seen: Set<String> = []
        return servers.map(\.key).filter { seen.insert($0).inserted }
    }

    /// The entry for `id` as written, or `nil` when there is none.
    package func entry(_ id: String) -> JSONValue? {
        root[Self.serversKey]?.objectValue?[id]
    }

    /// Puts `entry` under `id`: in place when the id exists, so the file keeps its order, else at the end.
    ///
    /// Creates `mcpServers` when the document has none (or has one that is not an object, which could not have
    /// been loaded anyway). Does not validate; call ``validatingEntry(_:id:environment:source:)`` first.
    package mutating func setEntry(_ entry: JSONValue, for id: String) {
        var servers = root[Self.serversKey]?.objectValue ?? JSONObject()
        servers[id] = entry
        root[Self.serversKey] = .object(servers)
    }

    /// Removes the entry for `id` (every copy of it, should the key be repeated); `false` when there was none.
    @discardableResult
    package mutating func removeEntry(_ id: String) -> Bool {
        guard var servers = root[Self.serversKey]?.objectValue, case .some = servers[id] else { return false }
        while case .some = servers[id] { servers[id] = nil }
        root[Self.serversKey] = .object(servers)
        return true
    }

    /// Decodes `entry` as the server `id` of this document, or throws the problems that storing it would cause.
    ///
    /// Works by decoding the document with the entry in it, so the checks and messages are the file's own: the
    /// id rules, the gateway's tool separator, a prefix unique among the other servers, paths such as
    /// `mcpServers.time.command`. For the check, the entry is placed after every other server; a prefix
    /// collision is then reported on this entry, naming the server it collides with, wherever the entry ends
    /// up in the file. Problems elsewhere in the document are reported too: a file written back with them
    /// would not load.
    package func validatingEntry(
        _ entry: JSONValue,
        id: String,
        environment: [String: String],
        source: String = "admin API"
    ) throws(ConfigError) -> ServerSpec {
        var candidate = self
        candidate.removeEntry(id)
        candidate.setEntry(entry, for: id)
        let config = try candidate.decoded(environment: environment, source: source)
        guard let server = config.server(id: id) else {
            // Unreachable while the decoder reports a problem for every entry it leaves out; kept as a problem
            // rather than a crash so an operator still gets an answer.
            let path = JSONPath.root.appending(key: Self.serversKey).appending(key: id)
            throw ConfigError(
                source: source,
                problems: [
                    ConfigProblem(
                        path: path.description,
                        message: "the server was not accepted",
                        fix: "check the entry"
                    )
                ]
            )
        }
        return server
    }
}
