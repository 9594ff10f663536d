import YrdenProtocol

/// Registers the gateway as an OAuth client (RFC 7591) for one redirect URI.
///
/// It asks to be a public client (`token_endpoint_auth_method: none`: the gateway's loopback redirect and
/// PKCE protect the code) of type `native` for a loopback redirect, `web` otherwise, as the MCP spec asks, and
/// for the refresh-token grant so sign-ins last. A server may answer with a secret and another method anyway;
/// its answer is what is used.
struct DynamicClientRegistration: Sendable {
    var http: OAuthHTTP
    var clientName: String

    func register(
        at endpoint: String,
        server: AuthorizationServerMetadata,
        redirectURI: String,
        scopes: [String]?
    ) async throws(OAuthError) -> ClientRegistration {
        let response = try await http.postJSON(endpoint, requestDocument(redirectURI: redirectURI, scopes: scopes))
        guard response.status == 200 || response.status == 201 else {
            let detail = oauthErrorSummary(response.body).map { ": \($0)" } ?? ""
            throw OAuthError(
                .registration,
                "the authorization server \(server.issuer) refused to register the gateway as a client "
                    + "(HTTP \(response.status))\(detail)"
            )
        }
        guard let document = try? JSONValue.parse(response.body), let clientID = document["client_id"]?.stringValue,
            !clientID.isEmpty
        else {
            throw OAuthError(.registration, "the registration answer of \(server.issuer) has no client_id")
        }
        let secret = document["client_secret"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let declared = document["token_endpoint_auth_method"]?.stringValue
        let method: ClientRegistration.AuthMethod
        if let declared {
            guard let known = ClientRegistration.AuthMethod(rawValue: declared) else {
                throw OAuthError(
                    .registration,
                    "\(server.issuer) registered the gateway for token authentication "
                        + "\(printable(declared, limit: 64)), which it does not support"
                )
            }
            method = known
        } else {
            // RFC 7591 §2: the default is client_secret_basic; without a secret only none can work.
            method = secret == nil ? .none : .clientSecretBasic
        }
        // RFC 7591 §3.2.1: 0 means the secret does not expire.
        let expiry = document["client_secret_expires_at"]?.doubleValue
        // The server may narrow or drop the scope asked for; what it answers is what the client covers.
        var registeredScopes = scopes.flatMap { $0.isEmpty ? nil : $0 }
        if let answered = document["scope"]?.stringValue {
            let list = answered.split(separator: " ").map(String.init)
            registeredScopes = list.isEmpty ? nil : list
        }
        return ClientRegistration(
            clientID: clientID,
            clientSecret: secret,
            authMethod: method,
            issuer: server.issuer,
            redirectURI: redirectURI,
            secretExpiresAt: expiry.flatMap { $0 > 0 ? $0 : nil },
            isDynamic: true,
            scopes: registeredScopes
        )
    }

    func requestDocument(redirectURI: String, scopes: [String]?) -> JSONValue {
        let isLoopback = OAuthURL(redirectURI)?.isLoopback ?? false
        var object: JSONObject = [
            "client_name": .string(clientName),
            "redirect_uris": [.string(redirectURI)],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "application_type": .string(isLoopback ? "native" : "web"),
        ]
        if let scopes, !scopes.isEmpty { object["scope"] = .string(scopes.joined(separator: " ")) }
        return .object(object)
    }
}
