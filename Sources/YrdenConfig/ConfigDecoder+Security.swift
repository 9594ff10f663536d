/// The `security` section.
///
/// Keys, all optional:
/// - `toolPinning` (`"off"`, `"warn"` or `"enforce"`; default `"warn"`): what a tool whose definition changed
///   after it was first seen does (see ``ToolPinningMode``)
extension ConfigDecoder {
    static let securityKeys = ["toolPinning"]

    func decodeSecurity(_ reader: JSONReader) -> SecuritySettings {
        var settings = SecuritySettings()
        guard let object = reader.object(known: Self.securityKeys) else { return settings }
        if let field = object["toolPinning"], let word = field.string() {
            if let mode = ToolPinningMode(rawValue: word) {
                settings.toolPinning = mode
            } else {
                let words = ToolPinningMode.allCases.map(\.rawValue.quoted).joined(separator: ", ")
                field.report(
                    "unknown tool pinning mode \(word.quoted)",
                    fix: "write one of \(words); \"warn\" (the default) serves changed tools and flags them, "
                        + "\"enforce\" withholds them until an operator approves"
                )
            }
        }
        return settings
    }
}
