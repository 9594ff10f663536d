import YrdenAudit
import YrdenConfig

/// The audit trail the config asks for (`audit`), opened before anything is served: a gateway asked to audit
/// does not run without its trail.
enum AuditSetup {
    static func trail(_ settings: AuditSettings) throws(StartupRefusal) -> AuditTrail? {
        guard let file = settings.file else { return nil }
        do {
            return try AuditTrail(path: file, maxBytes: settings.maxBytes, keep: settings.keep)
        } catch {
            throw StartupRefusal(
                message: "audit: \(error.message); create its directory, or point \"audit\".\"file\" at a path the "
                    + "gateway can write"
            )
        }
    }
}
