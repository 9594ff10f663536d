/// The `store` section.
///
/// Keys:
/// - `postgres` (string): a `postgres://` URL; the config, OAuth tokens, tool pins and `requestState` keys are
///   then kept in that database and shared by every gateway that names it. Write the password as `${VAR}`.
extension ConfigDecoder {
    static let storeKeys = ["postgres"]

    func decodeStore(_ reader: JSONReader) -> StoreSettings {
        var settings = StoreSettings()
        guard let object = reader.object(known: Self.storeKeys) else { return settings }
        guard let field = object["postgres"] else {
            reader.report(
                "the store names no database",
                fix:
                    #"write "store": {"postgres": "postgres://USER:${PGPASSWORD}@HOST:5432/DATABASE"}, or remove "store""#
            )
            return settings
        }
        guard let url = field.string() else { return settings }
        let lowered = url.lowercased()
        guard lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") else {
            field.report(
                "the store's URL must start with postgres://",
                fix: "write postgres://USER:${PGPASSWORD}@HOST:5432/DATABASE"
            )
            return settings
        }
        settings.postgres = url
        return settings
    }
}
