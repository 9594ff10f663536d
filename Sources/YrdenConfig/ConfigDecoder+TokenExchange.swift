/// `"auth": {"type": "tokenExchange", "tokenEndpoint": URL, "clientId"?, "clientSecret"?, "audience"?,
/// "resource"?, "scopes"?}`: each caller's token is exchanged (RFC 8693) for one the server accepts.
extension ConfigDecoder {
    func decodeTokenExchange(_ object: ObjectReader) -> TokenExchangeSpec? {
        guard let endpointField = object["tokenEndpoint"] else {
            object.report(
                "\"tokenExchange\" has no \"tokenEndpoint\"",
                fix: "add the URL of the authorization server's token endpoint that exchanges tokens"
            )
            return nil
        }
        guard let endpoint = endpointField.nonEmptyString("tokenEndpoint") else { return nil }
        if let finding = ConfigRules.checkHTTPURL(endpoint, shown: endpointField.writtenString) {
            endpointField.report(finding.message, fix: finding.fix)
            return nil
        }
        var spec = TokenExchangeSpec(tokenEndpoint: endpoint)
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
        return spec
    }
}
