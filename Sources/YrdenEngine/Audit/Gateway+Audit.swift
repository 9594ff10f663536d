import YrdenAudit
import YrdenProtocol

extension Gateway {
    /// Records an operator's change (an admin API request that is not a read) in the audit trail: who, the
    /// HTTP method and path (which name the server, profile or tool changed), the status it was answered, and
    /// how long it took. Never the body, which may hold secrets. Nothing without a trail.
    package func recordAdminChange(user: String, method: String, path: String, status: Int, duration: Duration) {
        guard let audit else { return }
        var record: JSONObject = ["kind": "admin"]
        record["user"] = .string(user)
        record["method"] = .string(method)
        record["path"] = .string(path)
        record["status"] = .int(status)
        record["outcome"] = status < 400 ? "ok" : "refused"
        record["durationMs"] = .double((TokenBucket.seconds(duration) * 1e6).rounded() / 1e3)
        audit.record(record)
    }

    /// Records an edit of the config file applied by a reload (the watcher, SIGHUP, or before an admin change):
    /// an operator's change too, made on disk. `applied` is false when the edit did not validate.
    package func recordConfigFileReload(file: String, applied: Bool, duration: Duration) {
        guard let audit else { return }
        var record: JSONObject = ["kind": "admin"]
        record["user"] = "config file"
        record["method"] = "reload"
        record["path"] = .string(file)
        record["outcome"] = applied ? "ok" : "refused"
        record["durationMs"] = .double((TokenBucket.seconds(duration) * 1e6).rounded() / 1e3)
        audit.record(record)
    }

    /// The audit trail's file this gateway writes; `nil` without a trail. Set at start: a reload that changes
    /// it is told it takes a restart.
    package var auditFile: String? { audit?.path }

    /// Waits up to `deadline` for the audit lines recorded so far to be written: at shutdown.
    package func flushAudit(within deadline: Duration = .seconds(3)) {
        audit?.flush(within: deadline)
    }
}
