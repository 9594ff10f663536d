import YrdenProtocol

/// The token endpoint of one authorization server, called as one client: code exchange and refresh.
///
/// Both requests carry `resource` (RFC 8707): the MCP spec requires it on token requests, and a refresh is one.
/// The code, verifier and refresh token travel only in the form body to this endpoint, never in a URL or log.
struct TokenEndpoint: Sendable {
    var http: OAuthHTTP
    var url: String
    var client: ClientRegistration

    /// Exchanges an authorization code (RFC 6749 §4.1.3 with the PKCE verifier).
    func exchange(
        code: String,
        verifier: String,
        redirectURI: String,
        resource: String
    ) async throws(OAuthError) -> TokenResponse {
        try await request(
            [
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", redirectURI),
                ("code_verifier", verifier),
                ("resource", resource),
            ],
            purpose: "exchange the authorization code"
        )
    }

    /// Refreshes (RFC 6749 §6); the scope is left out, so the server keeps the one granted.
    func refresh(_ refreshToken: String, resource: String) async throws(OAuthError) -> TokenResponse {
        try await request(
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("resource", resource)],
            purpose: "refresh the access token"
        )
    }

    /// Sends one token request. A 4xx with an OAuth error is `refused` (a new sign-in is needed); no answer,
    /// a 5xx or an unreadable answer is `network` (a later try may work).
    private func request(_ fields: [(String, String)], purpose: String) async throws(OAuthError) -> TokenResponse {
        let credentials = client.tokenRequestCredentials
        let response = try await http.postForm(url, fields + credentials.fields, headers: credentials.headers)
        if response.status == 200 {
            guard let document = try? JSONValue.parse(response.body), let tokens = TokenResponse(document) else {
                throw OAuthError(
                    .network,
                    "cannot \(purpose): the answer of \(url) has no access_token of type Bearer"
                )
            }
            return tokens
        }
        let answer = oauthError(response.body)
        if (400..<500).contains(response.status) && (answer != nil || response.status == 401) {
            throw OAuthError(
                .refused,
                "cannot \(purpose): \(url) refused with HTTP \(response.status)"
                    + (oauthErrorSummary(response.body).map { ": \($0)" } ?? ""),
                serverCode: answer?.code
            )
        }
        throw OAuthError(.network, "cannot \(purpose): \(url) answered HTTP \(response.status)")
    }
}
