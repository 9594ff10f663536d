import YrdenProtocol

/// The config split between what replicas share and what each keeps for itself.
///
/// With a store, the document replicas share holds everything but `store` (each replica's way to the store,
/// which names it), `audit` (each replica writes a trail of its own: two writing one file would break each
/// other's chain) and the gateway settings that are one process's own: where it listens, where it keeps its
/// files, where its apps sandbox listens, how the other replicas reach it. Those stay in each replica's file.
extension ConfigDocument {
    /// Gateway settings each replica keeps in its own file.
    package static let replicaGatewayKeys = ["listen", "dataDir", "appsListen", "replicaURL"]
    static let storeKey = "store"
    static let auditKey = "audit"

    /// What is written to the store: this document without `store` and the replica's own gateway settings.
    package var sharedPart: ConfigDocument {
        var shared = self
        shared.root[Self.storeKey] = nil
        shared.root[Self.auditKey] = nil
        if var gateway = shared.root["gateway"]?.objectValue {
            for key in Self.replicaGatewayKeys { gateway[key] = nil }
            shared.root["gateway"] = gateway.isEmpty ? nil : .object(gateway)
        }
        return shared
    }

    /// The shared document `self` with `local`'s own gateway settings and `audit` put back (not its `store`: the
    /// running config never shows the store's URL).
    package func withReplicaSettings(of local: ConfigDocument) -> ConfigDocument {
        var merged = sharedPart
        let own = local.root["gateway"]?.objectValue ?? JSONObject()
        var gateway = merged.root["gateway"]?.objectValue ?? JSONObject()
        for key in Self.replicaGatewayKeys { gateway[key] = own[key] }
        merged.root["gateway"] = gateway.isEmpty ? nil : .object(gateway)
        merged.root[Self.auditKey] = local.root[Self.auditKey]
        return merged
    }
}
