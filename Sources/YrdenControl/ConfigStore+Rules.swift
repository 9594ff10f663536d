import YrdenConfig
import YrdenProtocol

/// The store's two rules that read values only: a hidden value sent back where none is stored, and a gateway
/// setting that takes a restart.
extension ConfigStore {
    /// Where a redaction mark is still in `entry` after restoring: a hidden value sent back for a place that
    /// has none stored would otherwise become the literal text `********`.
    static func leftoverRedaction(in entry: JSONValue) -> String? {
        if ConfigDocument.holdsRedactionMark(entry["url"]) { return "url" }
        for section in ["env", "headers"] {
            for (key, value) in entry[section]?.objectValue ?? [:] where ConfigDocument.holdsRedactionMark(value) {
                return "\(section).\(key)"
            }
        }
        if ConfigDocument.holdsRedactionMark(entry["auth"]?["clientSecret"]) { return "auth.clientSecret" }
        return nil
    }

    /// The first gateway setting that differs, by its config key.
    static func changedGatewayField(_ old: GatewaySettings, _ new: GatewaySettings) -> String? {
        if old.listenHost != new.listenHost || old.listenPort != new.listenPort { return "listen" }
        if old.toolSeparator != new.toolSeparator { return "toolSeparator" }
        if old.adminToken != new.adminToken { return "adminToken" }
        if old.clientTokens != new.clientTokens { return "clientTokens" }
        if old.allowedOrigins != new.allowedOrigins { return "allowedOrigins" }
        if old.maxBodyBytes != new.maxBodyBytes { return "maxBodyBytes" }
        if old.dataDir != new.dataDir { return "dataDir" }
        if old.publicURL != new.publicURL { return "publicURL" }
        if old.oauthCallback != new.oauthCallback { return "oauthCallback" }
        if old.auth != new.auth { return "auth" }
        return nil
    }
}
