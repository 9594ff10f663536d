import YrdenProtocol

/// `gateway.auth` (see ``ResourceAuthSettings``): `issuer` and `audience` (absolute http/https URLs) are needed;
/// `scopes` (array of strings), `userClaim` and `groupsClaim` (strings; `sub` and `groups` by default), and
/// `introspection` (`{"clientId", "clientSecret"}`, the secret a `${VAR}`) are optional.
extension ConfigDecoder {
    static let resourceAuthKeys = ["issuer", "audience", "scopes", "userClaim", "groupsClaim", "introspection"]

    func decodeResourceAuth(_ reader: JSONReader) -> ResourceAuthSettings? {
        guard let object = reader.object(known: Self.resourceAuthKeys) else { return nil }
        var urls: [String: String] = [:]
        for key in ["issuer", "audience"] {
            guard let field = object[key] else {
                reader.report(
                    "gateway.auth needs \(key)",
                    fix: key == "issuer"
                        ? "give the identity provider's issuer URL, e.g. https://idp.example/realms/team"
                        : "give the gateway's resource URI as clients reach it, e.g. https://gateway.example/mcp"
                )
                continue
            }
            guard let url = field.string() else { continue }
            if let finding = ConfigRules.checkHTTPURL(url, shown: field.writtenString) {
                field.report(finding)
            } else {
                urls[key] = url
            }
        }
        var settings = ResourceAuthSettings(issuer: urls["issuer"] ?? "", audience: urls["audience"] ?? "")
        if let scopes = object["scopes"]?.array() {
            settings.scopes = scopes.compactMap { $0.nonEmptyString("a scope") }
        }
        if let claim = object["userClaim"]?.nonEmptyString("userClaim") { settings.userClaim = claim }
        if let claim = object["groupsClaim"]?.nonEmptyString("groupsClaim") { settings.groupsClaim = claim }
        if let introspection = object["introspection"]?.object(known: ["clientId", "clientSecret"]) {
            settings.introspectionClientID = introspection["clientId"]?.nonEmptyString("clientId")
            settings.introspectionClientSecret = introspection["clientSecret"]?.token("the introspection secret")
            if settings.introspectionClientID == nil || settings.introspectionClientSecret == nil {
                introspection.report(
                    "gateway.auth.introspection needs clientId and clientSecret",
                    fix: "give the client the identity provider registered for the gateway to introspect tokens"
                )
            }
        }
        return urls.count == 2 ? settings : nil
    }
}
