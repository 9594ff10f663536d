/// `"auth": {"type": "tokenExchange", "tokenEndpoint": URL, "clientId"?, "clientSecret"?, "audience"?,
/// "resource"?, "scopes"?}`: each caller's token is exchanged (RFC 8693) for one the server accepts.
extension ConfigDecoder {
    func decodeTokenExchange(_ object: ObjectReader) -> TokenExchangeSpec? {
        // Every field is judged even when the endpoint is not usable: an unresolved `${VAR}` in it fails only
        // this server, and must not hide a mistake elsewhere in the object, which fails the file.
        let endpoint = decodeTokenEndpoint(object)
        var spec = TokenExchangeSpec(tokenEndpoint: endpoint ?? "")
        spec.clientId = object["clientId"]?.nonEmptyString("clientId")
        spec.clientSecret = object["clientSecret"]?.nonEmptyString("clientSecret")
        if spec.clientSecret != nil, !object.contains("clientId") {
            object["clientSecret"]?.report(
                "\"clientSecret\" is set without \"clientId\"",
                fix: "add the \"clientId\" the secret belongs to"
            )
        }
        spec.audience = object["audience"]?.nonEmptyString("audience")
        if let field = object["resource"], let resource = field.nonEmptyString("resource") {
            if let finding = ConfigRules.checkHTTPURL(resource, shown: field.writtenString) {
                field.report(finding.message, fix: finding.fix)
            } else {
                spec.resource = resource
            }
        }
        spec.scopes = decodeScopes(object)
        return endpoint == nil ? nil : spec
    }

    /// The exchange's token endpoint: an http(s) URL, or `nil` with the problem reported (or the reference
    /// that could not be resolved recorded).
    private func decodeTokenEndpoint(_ object: ObjectReader) -> String? {
        guard let field = object["tokenEndpoint"] else {
            object.report(
                "\"tokenExchange\" has no \"tokenEndpoint\"",
                fix: "add the URL of the authorization server's token endpoint that exchanges tokens"
            )
            return nil
        }
        guard let endpoint = field.nonEmptyString("tokenEndpoint") else { return nil }
        if let finding = ConfigRules.checkHTTPURL(endpoint, shown: field.writtenString) {
            field.report(finding.message, fix: finding.fix)
            return nil
        }
        return endpoint
    }
}
