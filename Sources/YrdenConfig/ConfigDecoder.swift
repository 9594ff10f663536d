import YrdenProtocol

/// Turns a parsed document into a ``GatewayConfig``, recording every problem on the way.
///
/// Top-level keys:
/// - `gateway` (object, optional): see ``decodeGateway(_:)``.
/// - `mcpServers` (object, optional): server id → server entry, see ``decodeServer(id:_:separator:)``.
///
/// The decoder never stops early: a value that is wrong is reported and replaced by its default, so the
/// sections after it are still checked. Whether the result may be used is decided by the caller, from
/// whether any problem was recorded.
struct ConfigDecoder {
    let context: DecodingContext

    static let topLevelKeys = ["gateway", "mcpServers"]

    func decodeDocument(_ value: JSONValue) -> GatewayConfig {
        let root = JSONReader(value: value, path: .root, context: context)
        guard case .object = value else {
            root.report(
                "the configuration must be a JSON object, found \(value.typeName)",
                fix: #"start from {"mcpServers": {}} and add servers to it"#
            )
            return GatewayConfig()
        }
        guard let object = root.object(known: Self.topLevelKeys) else { return GatewayConfig() }
        let gateway = object["gateway"].map(decodeGateway) ?? GatewaySettings()
        let servers = object["mcpServers"].map { decodeServers($0, separator: gateway.toolSeparator) } ?? []
        return GatewayConfig(gateway: gateway, servers: servers)
    }

    /// Every entry of `mcpServers`, in document order; entries with problems are left out.
    func decodeServers(_ reader: JSONReader, separator: String) -> [ServerSpec] {
        guard let entries = reader.entries() else { return [] }
        var servers: [ServerSpec] = []
        var prefixOwners: [String: String] = [:]
        for (id, entry) in entries {
            let idFinding = ConfigRules.checkServerID(id, separator: separator)
            if let idFinding { entry.report(idFinding) }
            guard let server = decodeServer(id: id, entry, separator: separator), idFinding == nil else { continue }
            if let owner = prefixOwners[server.prefix] {
                let path = entry.value["prefix"] == nil ? entry.path : entry.path.appending(key: "prefix")
                context.report(
                    path,
                    "prefix \(server.prefix.quoted) is also used by server \(owner.quoted)",
                    fix: "give one of them a different \"prefix\" so their tool names cannot collide"
                )
                continue
            }
            prefixOwners[server.prefix] = id
            servers.append(server)
        }
        return servers
    }
}
