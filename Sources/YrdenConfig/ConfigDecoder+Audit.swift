/// The `audit` section.
///
/// Keys:
/// - `file` (non-empty string, required): the trail's path; a relative one is relative to the working directory
/// - `maxBytes` (integer, 65,536 to 1 TiB; default 100 MiB): the size past which the file is rotated
/// - `keep` (integer, 1 to 1,000; default 5): rotated files kept (`<file>.1` the newest)
extension ConfigDecoder {
    static let auditKeys = ["file", "maxBytes", "keep"]

    func decodeAudit(_ reader: JSONReader) -> AuditSettings {
        var settings = AuditSettings()
        guard let object = reader.object(known: Self.auditKeys) else { return settings }
        guard let field = object["file"] else {
            reader.report(
                "the audit section names no file",
                fix: #"write "audit": {"file": "/var/log/yrden/audit.jsonl"}, or remove "audit""#
            )
            return settings
        }
        settings.file = field.nonEmptyString("the audit file")
        if let bytes = object["maxBytes"]?.integer(
            in: AuditSettings.maxBytesRange,
            fix: "use a number of bytes from 65536 (64 KiB) to 1099511627776 (1 TiB); the default is 104857600"
        ) {
            settings.maxBytes = bytes
        }
        if let keep = object["keep"]?.integer(in: AuditSettings.keepRange) {
            settings.keep = keep
        }
        return settings
    }
}
