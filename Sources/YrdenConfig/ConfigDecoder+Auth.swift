import YrdenProtocol

/// The `auth` object of a remote server.
///
/// Keys: `type` (required: `"oauth"`, `"tokenExchange"`, `"forward"` or `"none"`); with `"oauth"`, optionally
/// `scopes` (array of strings),
/// `clientId`, `clientSecret` (strings; a secret needs an id), `redirectPort` (1–65535), `clientMetadataURL`
/// (the https URL, with a path, of the gateway's client ID metadata document) and `perUser` (a boolean: one
/// sign-in per Yrden user). `"tokenExchange"` is decoded in
/// `ConfigDecoder+TokenExchange`; `"forward"` takes no other key. Keys of another type are problems, since they
/// would suggest something happens that does not.
extension ConfigDecoder {
    static let authTypes = ["oauth", "tokenExchange", "forward", "none"]

    func decodeAuth(_ reader: JSONReader) -> AuthSpec {
        let known = OAuthSpec.keys + TokenExchangeSpec.keys.filter { !OAuthSpec.keys.contains($0) }
        guard let object = reader.object(known: known) else { return .none }
        guard let typeField = object["type"] else {
            object.report("\"auth\" has no \"type\"", fix: "add \"type\": \"oauth\" or \"type\": \"none\"")
            return .none
        }
        guard let type = typeField.string() else { return .none }
        switch type {
        case "none", "forward":
            refuseKeys(known.dropFirst(), in: object, type: type)
            return type == "none" ? .none : .forward
        case "oauth":
            refuseKeys(known.filter { !OAuthSpec.keys.contains($0) }, in: object, type: type)
            return .oauth(decodeOAuth(object))
        case "tokenExchange":
            refuseKeys(known.filter { !TokenExchangeSpec.keys.contains($0) }, in: object, type: type)
            return decodeTokenExchange(object).map(AuthSpec.tokenExchange) ?? .none
        default:
            typeField.report(
                "unknown auth type \(type.quoted)",
                fix: KeySuggestion.valueFix(for: type, among: Self.authTypes)
            )
            return .none
        }
    }

    /// Keys of another auth type are problems: they would suggest something happens that does not.
    private func refuseKeys(_ keys: some Sequence<String>, in object: ObjectReader, type: String) {
        for key in keys {
            object[key]?.report(
                "\"\(key)\" does not apply to \"type\": \(type.quoted)",
                fix: "remove it, or set the \"type\" it belongs to"
            )
        }
    }

    func decodeScopes(_ object: ObjectReader) -> [String] {
        var scopes: [String] = []
        for item in object["scopes"]?.array() ?? [] {
            guard let scope = item.nonEmptyString("the scope") else { continue }
            if scope.contains(where: \.isWhitespace) {
                item.report(
                    "scope \(scope.quoted) contains whitespace",
                    fix: "list each scope as its own array item"
                )
                continue
            }
            scopes.append(scope)
        }
        return scopes
    }

    private func decodeOAuth(_ object: ObjectReader) -> OAuthSpec {
        var spec = OAuthSpec()
        spec.scopes = decodeScopes(object)
        spec.clientId = object["clientId"]?.nonEmptyString("clientId")
        spec.clientSecret = object["clientSecret"]?.nonEmptyString("clientSecret")
        if spec.clientSecret != nil, !object.contains("clientId") {
            object["clientSecret"]?.report(
                "\"clientSecret\" is set without \"clientId\"",
                fix: "add the \"clientId\" the secret belongs to, or remove the secret to register dynamically"
            )
        }
        spec.redirectPort = object["redirectPort"]?.integer(in: 1...65535, fix: "use a port from 1 to 65535")
        spec.perUser = object["perUser"]?.bool() ?? false
        if let field = object["clientMetadataURL"], let url = field.nonEmptyString("clientMetadataURL") {
            if let finding = Self.checkClientMetadataURL(url) {
                field.report(finding.message, fix: finding.fix)
            } else {
                spec.clientMetadataURL = url
            }
        }
        return spec
    }

    /// CIMD's rule for a client_id URL: https with a path (plain http only on this machine, for development).
    static func checkClientMetadataURL(_ url: String) -> Finding? {
        if let finding = ConfigRules.checkHTTPURL(url) { return finding }
        let fix =
            "publish the gateway's client metadata document at an https URL with a path, e.g. "
            + "\"https://gateway.example.com/oauth/client.json\", and name that URL"
        let rest = url.drop { $0 != ":" }.dropFirst(3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let path = rest.dropFirst(authority.count).prefix { $0 != "?" && $0 != "#" }
        guard path.count > 1 else {
            return Finding(message: "clientMetadataURL \(url.quoted) has no path", fix: fix)
        }
        guard !url.contains("#") else {
            return Finding(message: "clientMetadataURL \(url.quoted) has a fragment", fix: fix)
        }
        let hostAndPort = authority.split(separator: "@").last.map(String.init) ?? ""
        let host =
            hostAndPort.hasPrefix("[")
            ? String(hostAndPort.prefix { $0 != "]" }) + "]" : String(hostAndPort.prefix { $0 != ":" })
        let isLoopback = ["localhost", "127.0.0.1", "[::1]"].contains(host.lowercased())
        guard url.lowercased().hasPrefix("https://") || isLoopback else {
            return Finding(message: "clientMetadataURL \(url.quoted) is not https", fix: fix)
        }
        return nil
    }
}
