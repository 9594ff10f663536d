/// The `audit` section: where the audit trail of calls and admin changes is written. Absent (no `file`),
/// nothing is audited.
package struct AuditSettings: Sendable, Hashable {
    /// The trail's file; older files are `<file>.1` (the newest) to `<file>.<keep>`.
    package var file: String?
    /// The size past which the file is rotated (its lines stay whole: a line never spans two files).
    package var maxBytes = AuditSettings.defaultMaxBytes
    /// How many rotated files are kept beside the current one; older ones are deleted.
    package var keep = AuditSettings.defaultKeep

    package static let defaultMaxBytes = 100 << 20
    package static let defaultKeep = 5
    /// At least 64 KiB: a file smaller than a few lines would rotate on every call.
    static let maxBytesRange = (64 << 10)...(1 << 40)
    static let keepRange = 1...1_000

    package init(
        file: String? = nil,
        maxBytes: Int = AuditSettings.defaultMaxBytes,
        keep: Int = AuditSettings.defaultKeep
    ) {
        self.file = file
        self.maxBytes = maxBytes
        self.keep = keep
    }
}
