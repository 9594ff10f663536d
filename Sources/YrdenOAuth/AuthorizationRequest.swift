/// The authorization URL the user opens (RFC 6749 §4.1.1 with PKCE, RFC 8707 `resource`).
struct AuthorizationRequest: Sendable, Hashable {
    var endpoint: OAuthURL
    var clientID: String
    var redirectURI: String
    /// Nil leaves `scope` out, as the MCP spec says when neither the challenge nor the metadata names any.
    var scopes: [String]?
    var state: String
    var codeChallenge: String
    var resource: String

    /// The query parameters, in a fixed order.
    var parameters: [(String, String)] {
        var parameters: [(String, String)] = [
            ("response_type", "code"),
            ("client_id", clientID),
            ("redirect_uri", redirectURI),
        ]
        if let scopes, !scopes.isEmpty { parameters.append(("scope", scopes.joined(separator: " "))) }
        parameters += [
            ("state", state),
            ("code_challenge", codeChallenge),
            ("code_challenge_method", PKCE.method),
            ("resource", resource),
        ]
        return parameters
    }

    /// The endpoint with the parameters added to any query it already has.
    var url: String {
        let query = FormEncoding.encode(parameters)
        guard let existing = endpoint.query, !existing.isEmpty else { return endpoint.description + "?" + query }
        return endpoint.description + "&" + query
    }
}
