import YrdenProtocol

/// Turns a parsed document into a ``GatewayConfig``, recording every problem on the way.
///
/// Top-level keys:
/// - `gateway` (object, optional): see ``decodeGateway(_:)``.
/// - `security` (object, optional): see ``decodeSecurity(_:)``.
/// - `mcpServers` (object, optional): server id → server entry, see ``decodeServer(id:_:separator:)``; a file
///   with VS Code's `servers` instead is read the same way.
/// - `profiles` (object, optional): profile name → profile, see ``decodeProfiles(_:servers:)``.
/// - `store` (object, optional): shared state in PostgreSQL, see ``decodeStore(_:)``.
/// - `audit` (object, optional): the audit trail, see ``decodeAudit(_:)``.
/// - `limits` (object, optional): rate limits, see ``decodeLimits(_:profiles:)``.
/// - `telemetry` (object, optional): OpenTelemetry traces, see ``decodeTelemetry(_:)``.
/// - Hosts' own top-level keys (``HostKeys/topLevel``) are accepted; the ones without a use here get a notice.
///
/// The decoder never stops early: a value that is wrong is reported and replaced by its default, so the
/// sections after it are still checked. Whether the result may be used is decided by the caller, from
/// whether any problem was recorded.
struct ConfigDecoder {
    let context: DecodingContext

    static let topLevelKeys = [
        "gateway", "security", "mcpServers", "profiles", "store", "audit", "limits", "telemetry",
    ]

    func decodeDocument(_ value: JSONValue) -> GatewayConfig {
        let root = JSONReader(value: value, path: .root, context: context)
        guard case .object = value else {
            root.report(
                "the configuration must be a JSON object, found \(value.typeName)",
                fix: #"start from {"mcpServers": {}} and add servers to it"#
            )
            return GatewayConfig()
        }
        guard let object = root.object(known: Self.topLevelKeys, hostKeys: .topLevel) else { return GatewayConfig() }
        let gateway = object["gateway"].map(decodeGateway) ?? GatewaySettings()
        let security = object["security"].map(decodeSecurity) ?? SecuritySettings()
        let servers = serversSection(object).map { decodeServers($0, separator: gateway.toolSeparator) } ?? []
        let profiles = object["profiles"].map { decodeProfiles($0, servers: servers) } ?? []
        var config = GatewayConfig(gateway: gateway, security: security, servers: servers, profiles: profiles)
        config.store = object["store"].map(decodeStore) ?? StoreSettings()
        config.audit = object["audit"].map(decodeAudit) ?? AuditSettings()
        config.limits = object["limits"].map { decodeLimits($0, profiles: profiles) } ?? LimitSettings()
        config.telemetry = decodeTelemetry(object["telemetry"])
        return config
    }

    /// `mcpServers`, or VS Code's `servers` in a file that has only that; both at once is a problem, since
    /// which one the operator edits is anybody's guess.
    func serversSection(_ object: ObjectReader) -> JSONReader? {
        guard let vsCode = object["servers"] else { return object["mcpServers"] }
        guard object["mcpServers"] == nil else {
            vsCode.report(
                "the file has both \"servers\" (VS Code's name) and \"mcpServers\"",
                fix: "move the entries of \"servers\" into \"mcpServers\" and remove \"servers\""
            )
            return object["mcpServers"]
        }
        return vsCode
    }

    /// Every server entry, in document order; entries with problems are left out. An entry whose only trouble
    /// is an unresolved `${...}` is kept, carrying it (see ``UnresolvedReference``).
    func decodeServers(_ reader: JSONReader, separator: String) -> [ServerSpec] {
        guard let entries = reader.entries() else { return [] }
        var servers: [ServerSpec] = []
        var prefixOwners: [String: String] = [:]
        for (id, entry) in entries {
            let idFinding = ConfigRules.checkServerID(id, separator: separator)
            if let idFinding { entry.report(idFinding) }
            let (decoded, unresolved) = context.collectingUnresolved {
                decodeServer(id: id, entry, separator: separator)
            }
            guard var server = decoded, idFinding == nil else { continue }
            server.unresolved = unresolved
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
